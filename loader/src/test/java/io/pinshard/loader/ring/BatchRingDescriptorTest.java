package io.pinshard.loader.ring;

import static io.pinshard.loader.ring.BatchRingDescriptor.HELD_TOTAL_OFFSET;
import static io.pinshard.loader.ring.BatchRingDescriptor.PADDED_LENGTH;
import static io.pinshard.loader.ring.BatchRingDescriptor.SLOT_FILLED_OFFSET;
import static io.pinshard.loader.ring.BatchRingDescriptor.SLOT_SEQUENCE_OFFSET;
import static io.pinshard.loader.ring.BatchRingDescriptor.TICKET_OFFSET;
import static io.pinshard.loader.ring.BatchRingDescriptor.WORKER_HEAP_BYTES_OFFSET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.loader.Loader;
import io.pinshard.loader.TestDatasets;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.memory.BatchMemoryAllocator;
import io.pinshard.memory.HostMemoryAllocator;
import io.pinshard.memory.NativeRegion;
import io.pinshard.reader.Dataset;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.agrona.BitUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ring's control block layout and the validators beside it. */
class BatchRingDescriptorTest {
    @TempDir
    Path temp;

    @Test
    void everyIndependentlyWrittenFieldHasItsOwnPairOfCacheLines() {
        int slots = 5;
        int workers = 3;
        assertEquals(2 * BitUtil.CACHE_LINE_LENGTH, HELD_TOTAL_OFFSET - TICKET_OFFSET,
            "the workers' ticket and the consumer's count are two lines apart");
        Set<Integer> blocks = new HashSet<>();
        assertTrue(blocks.add(TICKET_OFFSET / PADDED_LENGTH));
        assertTrue(blocks.add(HELD_TOTAL_OFFSET / PADDED_LENGTH));
        for (int s = 0; s < slots; s++) {
            int offset = BatchRingDescriptor.slotOffset(s);
            assertEquals(0, offset % PADDED_LENGTH);
            assertEquals(offset / PADDED_LENGTH, (offset + SLOT_FILLED_OFFSET + Integer.BYTES - 1) / PADDED_LENGTH);
            assertTrue(blocks.add((offset + SLOT_SEQUENCE_OFFSET) / PADDED_LENGTH), "slot " + s);
        }
        for (int w = 0; w < workers; w++) {
            int offset = BatchRingDescriptor.workerOffset(slots, w);
            assertEquals(0, offset % PADDED_LENGTH);
            assertEquals(offset / PADDED_LENGTH, (offset + WORKER_HEAP_BYTES_OFFSET + Long.BYTES - 1) / PADDED_LENGTH);
            assertTrue(blocks.add(offset / PADDED_LENGTH), "worker " + w);
        }
        assertEquals(blocks.size() * PADDED_LENGTH, BatchRingDescriptor.controlLength(slots, workers));
    }

    @Test
    void slotArraysAreCacheLineAlignedAfterTheImages() {
        long imageBytes = 13 * 13 * 3;
        long labels = BatchRingDescriptor.slotLabelsOffset(5, imageBytes);
        long ids = BatchRingDescriptor.slotIdsOffset(5, imageBytes);
        assertEquals(BitUtil.align(5 * imageBytes, 64), labels);
        assertEquals(BitUtil.align(labels + 5 * 4, 64), ids);
        assertEquals(BitUtil.align(ids + 5 * 8, 64), BatchRingDescriptor.slotLength(5, imageBytes));
    }

    @Test
    void validatorsRefuseBadCountsAndShortOrMisalignedMemory() {
        assertThrows(IllegalArgumentException.class, () -> BatchRingDescriptor.controlLength(0, 1));
        assertThrows(IllegalArgumentException.class, () -> BatchRingDescriptor.controlLength(1, 1025));
        int length = BatchRingDescriptor.controlLength(2, 2);
        BatchRingDescriptor.checkControlBlock(4096, length, 2, 2);
        IllegalStateException shortBlock = assertThrows(IllegalStateException.class,
            () -> BatchRingDescriptor.checkControlBlock(4096, length - 1, 2, 2));
        assertTrue(shortBlock.getMessage().contains("needs " + length), shortBlock.getMessage());
        IllegalStateException misaligned = assertThrows(IllegalStateException.class,
            () -> BatchRingDescriptor.checkControlBlock(4096 + 64, length, 2, 2));
        assertTrue(misaligned.getMessage().contains("not 128-byte aligned"), misaligned.getMessage());
    }

    @Test
    void loaderRefusesAnAllocatorThatIgnoresTheAlignmentAndFreesWhatItGot() throws Exception {
        Path dir = TestDatasets.write(temp.resolve("d"), 8, Codec.RAW, 3, 1 << 20);
        HostMemoryAllocator counted = new HostMemoryAllocator();
        BatchMemoryAllocator offByOneLine = new BatchMemoryAllocator() {
            @Override
            public NativeRegion allocate(long length, int alignment) {
                NativeRegion aligned = counted.allocate(length + 64, alignment);
                return new NativeRegion() {
                    @Override public long address() { return aligned.address() + 64; }
                    @Override public long length() { return length; }
                    @Override public boolean pageLocked() { return false; }
                    @Override public void close() { aligned.close(); }
                };
            }

            @Override
            public String name() {
                return "misaligned";
            }
        };
        try (Dataset dataset = Dataset.open(dir)) {
            LoaderOptions options = TestDatasets.small().scratchAllocator(offByOneLine).build();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> Loader.open(dataset, options));
            assertTrue(e.getMessage().contains("control block") && e.getMessage().contains("aligned"), e.getMessage());
            LoaderOptions slots = TestDatasets.small().allocator(offByOneLine).build();
            e = assertThrows(IllegalStateException.class, () -> Loader.open(dataset, slots));
            assertTrue(e.getMessage().contains("batch slot") && e.getMessage().contains("aligned"), e.getMessage());
        }
        assertEquals(2, counted.allocatedRegions());
        assertEquals(0, counted.liveRegions(), "the refused regions are freed");
    }
}
