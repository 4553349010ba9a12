package io.pinshard.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Json;
import io.pinshard.format.ShardFormatException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dataset with more shards than it may map: mapped on demand under a bound that is never exceeded, every record
 * still read right, by several threads in random order (the loader's access pattern), with pins held across reads.
 */
class BoundedMappingTest {
    static final int LIMIT = MappingBound.MIN_LIMIT;

    @TempDir
    static Path dir;
    static int shards;

    @BeforeAll
    static void write() throws IOException {
        TestImages.writeDataset(dir, 400, 1024);
        shards = Json.readManifest(dir).shards().size();
        assertTrue(shards > 3 * LIMIT, "the test needs many more shards than the bound, got " + shards);
    }

    @Test
    void readersInRandomOrderNeverMapMoreThanTheBound() throws Exception {
        try (Dataset dataset = Dataset.open(dir, true, LIMIT)) {
            assertEquals(LIMIT, dataset.mappingLimit());
            assertEquals(0, dataset.mappedPeak(), "nothing mapped at open");
            int threads = 4;
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicInteger reads = new AtomicInteger();
            List<Thread> readers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long seed = t;
                readers.add(new Thread(() -> {
                    try {
                        RecordView view = new RecordView();
                        RecordDecoder decoder = new RecordDecoder(CrcCheck.ALWAYS, 1 << 16, 1 << 16);
                        UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(1 << 16));
                        SplittableRandom random = new SplittableRandom(seed);
                        for (int i = 0; i < 3000; i++) {
                            long r = random.nextLong(dataset.size());
                            dataset.pin(r, view);
                            try {
                                assertEquals("img/" + r + ".png", view.key());
                                assertEquals(r % 3, view.label());
                                decoder.decode(view, out, 0); // payload CRC checked: the right bytes are mapped
                            } finally {
                                view.unpin();
                            }
                            reads.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            // The kernel's own count: lines of /proc/self/maps that map a file of this dataset.
            AtomicInteger kernelPeak = new AtomicInteger();
            Thread sampler = new Thread(() -> {
                while (readers.stream().anyMatch(Thread::isAlive) || kernelPeak.get() == 0) {
                    kernelPeak.accumulateAndGet(mappingsOf(dir), Math::max);
                }
            });
            readers.forEach(Thread::start);
            sampler.start();
            for (Thread reader : readers) {
                reader.join();
            }
            sampler.join();
            if (failure.get() != null) {
                throw new AssertionError("a reader failed", failure.get());
            }
            assertEquals(threads * 3000, reads.get());
            assertEquals(LIMIT, dataset.mappedPeak(), "the bound is reached and never exceeded");
            if (Files.isReadable(Path.of("/proc/self/maps"))) {
                assertTrue(kernelPeak.get() > 0 && kernelPeak.get() <= LIMIT, "the kernel saw " + kernelPeak.get());
            }
            long mapped = 0;
            for (int s = 0; s < dataset.shardCount(); s++) {
                mapped += dataset.isLoaded(s) ? 1 : 0;
            }
            assertTrue(mapped <= LIMIT, mapped + " shards mapped");
        }
    }

    /** Shard files of {@code dataset} mapped by this process now (0 where /proc is missing). */
    static int mappingsOf(Path dataset) {
        if (!Files.isReadable(Path.of("/proc/self/maps"))) {
            return 1;
        }
        try (var lines = Files.lines(Path.of("/proc/self/maps"))) {
            String prefix = dataset.toAbsolutePath() + "/";
            return (int) lines.filter(line -> line.contains(prefix)).count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void sequentialReadsOfEveryRecordWithoutPins() {
        try (Dataset dataset = Dataset.open(dir, false, LIMIT)) {
            RecordView view = new RecordView();
            for (long r = 0; r < dataset.size(); r++) {
                assertEquals("img/" + r + ".png", dataset.record(r, view).key());
            }
            assertTrue(dataset.mappedPeak() <= LIMIT);
        }
    }

    @Test
    void aShardsChecksStillHappenBeforeItsFirstRecordUnderTheBound(@TempDir Path scratch) throws IOException {
        int bad = shards - 1;
        String file = Json.readManifest(dir).shards().get(bad).file();
        Path copy = Files.createDirectories(scratch.resolve("corrupt"));
        try (var list = Files.list(dir)) {
            for (Path p : list.toList()) {
                Files.copy(p, copy.resolve(p.getFileName()));
            }
        }
        ShardSurgery surgery = new ShardSurgery(copy, file);
        surgery.bytes.putInt(surgery.entry(0) + io.pinshard.format.IndexEntryDescriptor.LABEL_OFFSET, 99,
            java.nio.ByteOrder.LITTLE_ENDIAN);
        surgery.seal();
        try (Dataset dataset = Dataset.open(copy, true, LIMIT)) {
            RecordView view = new RecordView();
            ShardFormatException e = assertThrows(ShardFormatException.class,
                () -> dataset.record(dataset.firstRecordOf(bad), view));
            assertTrue(e.getMessage().contains(file) && e.record() == 0, e.getMessage());
            assertEquals("img/0.png", dataset.record(0, view).key(), "the other shards serve");
        }
    }

    @Test
    void aBoundBelowTheMinimumIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Dataset.open(dir, true, LIMIT - 1));
    }
}
