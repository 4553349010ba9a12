package io.pinshard.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pinshard.memory.AbstractBatchMemoryAllocatorTest;
import io.pinshard.memory.BatchMemoryAllocator;
import io.pinshard.memory.NativeRegion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The allocator contract on the serve ring: {@link RingFile} is the loader's allocator under {@code pinshard serve},
 * a fixed arena of {@value #SLOTS} page-aligned slots of one size, fixed by the first allocation. The arena is sized
 * here by one allocation of {@link #maxRegionLength()} before the test; after it, the ring must leave no file
 * behind (its own and its temporary name), which is this suite's leak check beside the live-region count.
 */
@org.junit.jupiter.api.Tag("process")
class RingFileAllocatorTest extends AbstractBatchMemoryAllocatorTest {
    private static final int SLOTS = 8;
    private static final long SLOT_BYTES = 1 << 20;

    @TempDir
    Path directory;
    private RingFile ring;

    @Override
    protected BatchMemoryAllocator createAllocator() {
        ring = RingFile.prepare(directory.resolve("contract.ring"), SLOTS);
        NativeRegion sizing = ring.allocate(SLOT_BYTES, RingDescriptor.PAGE);
        sizing.close();
        return ring;
    }

    @Override
    protected boolean pageLocked() {
        return false;
    }

    @Override
    protected int maxAlignment() {
        return RingDescriptor.PAGE;
    }

    @Override
    protected int maxLiveRegions() {
        return SLOTS;
    }

    @Override
    protected long maxRegionLength() {
        return SLOT_BYTES;
    }

    @AfterEach
    void ringLeavesNoFile() throws IOException {
        ring.close();
        try (Stream<Path> left = Files.list(directory)) {
            assertEquals(List.of(), left.toList(), "files the closed ring left in " + directory);
        }
    }
}
