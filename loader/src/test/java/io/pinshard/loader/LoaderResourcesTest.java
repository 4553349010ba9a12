package io.pinshard.loader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.SampleOrder;
import io.pinshard.loader.ring.Batch;
import io.pinshard.memory.HeapCounter;
import io.pinshard.memory.HostMemoryAllocator;
import io.pinshard.reader.Dataset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Zero heap in steady state, no leaked threads or native memory, and the batch holding contract. */
public class LoaderResourcesTest {
    private static final int WARMUP_EPOCHS = 30;

    @TempDir
    Path temp;

    @Test
    void steadyStateAllocatesAtMostOneKibPerBatchAcrossAllLoaderThreads() throws Exception {
        for (Codec codec : Codec.values()) {
            Path dir = TestDatasets.write(temp.resolve(codec.label()), 600, codec, 3, 1 << 20);
            double perBatch = heapBytesPerBatch(dir, codec);
            System.out.printf("zero-heap: %s %.1f heap bytes per batch across loader threads and the consumer%n",
                codec.label(), perBatch);
            assertTrue(perBatch <= 1024, codec + ": " + perBatch + " heap bytes per batch");
        }
    }

    /**
     * Persistent workers (issue 11): a dataset smaller than one batch gives one batch per epoch, so epoch starts
     * dominate. After warm-up, 400 such epochs back to back allocate at most 64 heap bytes per batch over every
     * loader thread and the consumer, epoch starts included, and start no thread.
     */
    @Test
    void epochsOverADatasetSmallerThanOneBatchAllocateAtMost64BytesPerBatchAndStartNoThread() throws Exception {
        Path dir = TestDatasets.write(temp.resolve("tiny"), 25, Codec.RAW, 3, 1 << 20);
        LoaderOptions options = LoaderOptions.builder().batchSize(32).crop(24).workers(2).prefetch(4).seed(3).build();
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, options)) {
            assertEquals(1, loader.batchesPerEpoch());
            int epoch = 0;
            // Warm until rounds of 50 epochs allocate under 1 KiB on the consumer and the workers together.
            for (int rounds = 0, quiet = 0; rounds < WARMUP_EPOCHS && quiet < 2; rounds++) {
                List<Thread> threads = loaderThreads(loader.name() + "-");
                threads.add(Thread.currentThread());
                long before = HeapCounter.allocatedBytes(threads);
                epoch = drainEpochs(loader, epoch, 50);
                quiet = HeapCounter.allocatedBytes(threads) - before < 1024 ? quiet + 1 : 0;
            }
            List<Thread> workers = loaderThreads(loader.name() + "-");
            assertEquals(2, workers.size(), workers.toString());
            List<Thread> threads = new ArrayList<>(workers);
            threads.add(Thread.currentThread());
            long batchesBefore = loader.stats().batches();
            long before = HeapCounter.allocatedBytes(threads);
            drainEpochs(loader, epoch, 400);
            long allocated = HeapCounter.allocatedBytes(threads) - before;
            assertEquals(400, loader.stats().batches() - batchesBefore, "one batch per epoch");
            double perBatch = allocated / 400.0;
            System.out.printf("zero-heap: %.1f heap bytes per batch over 400 one-batch epochs, starts included%n",
                perBatch);
            assertTrue(perBatch <= 64, perBatch + " heap bytes per batch");
            assertEquals(new HashSet<>(workers), new HashSet<>(loaderThreads(loader.name() + "-")),
                "no thread started per epoch");
        }
    }

    /** Iterates {@code count} epochs from {@code first} as a trainer does; returns the next epoch number. */
    private static int drainEpochs(Loader loader, int first, int count) {
        for (int e = first; e < first + count; e++) {
            try (Epoch epoch = loader.epoch(e)) {
                drain(epoch, Long.MAX_VALUE);
            }
        }
        return first + count;
    }

    /**
     * Heap bytes per batch over every loader worker and the consumer, after warm-up: whole epochs until two
     * in a row allocate at most 1 KiB per batch (the vector crop kernel allocates until C2 has compiled it,
     * which on 2 busy cores can take a few epochs of this small data), at most {@value #WARMUP_EPOCHS}.
     */
    static double heapBytesPerBatch(Path dir, Codec codec) {
        LoaderOptions options = LoaderOptions.builder().batchSize(4).crop(24).workers(2).prefetch(4).seed(3).build();
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, options)) {
            int epochs = 0;
            int quiet = 0;
            do {
                long before = loader.stats().workerHeapBytes(); // counted by each worker after each sample
                try (Epoch warmup = loader.epoch(epochs++)) {
                    long batches = drain(warmup, Long.MAX_VALUE);
                    warmup.close();
                    double perBatch = (loader.stats().workerHeapBytes() - before) / (double) batches;
                    quiet = perBatch <= 1024 ? quiet + 1 : 0;
                }
            } while (quiet < 2 && epochs < WARMUP_EPOCHS);
            System.out.printf("zero-heap: %s warm after %d epoch(s)%n", codec.label(), epochs);
            try (Epoch epoch = loader.epoch(epochs)) {
                drain(epoch, 20);
                List<Thread> threads = loaderThreads(loader.name() + "-");
                threads.add(Thread.currentThread());
                long before = HeapCounter.allocatedBytes(threads);
                long batches = drain(epoch, 100);
                long after = HeapCounter.allocatedBytes(threads);
                assertEquals(100, batches);
                return (after - before) / (double) batches;
            }
        }
    }

    /** Takes up to {@code max} batches, reading each through its checked accessors (which must not allocate). */
    private static long drain(Epoch epoch, long max) {
        long n = 0;
        long sink = 0;
        while (n < max && epoch.hasNext()) {
            try (Batch batch = epoch.next()) {
                for (int i = 0; i < batch.size(); i++) {
                    sink += batch.label(i) + batch.sampleId(i) + batch.imageAddress(i);
                }
                sink += batch.address() + batch.labelsAddress() + batch.sampleIdsAddress() + batch.region().length();
                n++;
            }
        }
        if (sink == 42) {
            System.out.print(""); // keeps the reads alive
        }
        return n;
    }

    public static List<Thread> loaderThreads(String prefix) {
        List<Thread> found = new ArrayList<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().startsWith(prefix) && thread.isAlive()) {
                found.add(thread);
            }
        }
        return found;
    }

    @Test
    void thousandOpenIterateBreakCloseCyclesLeakNoThreadsAndNoNativeMemory() throws Exception {
        Path dir = TestDatasets.write(temp.resolve("cycles"), 50, Codec.LZ4, 3, 1 << 20);
        HostMemoryAllocator batches = new HostMemoryAllocator();
        HostMemoryAllocator scratch = new HostMemoryAllocator();
        LoaderOptions options = LoaderOptions.builder().batchSize(4).crop(8).workers(2).prefetch(3)
            .allocator(batches).scratchAllocator(scratch).build();
        try (Dataset dataset = Dataset.open(dir)) {
            for (int cycle = 0; cycle < 1000; cycle++) {
                try (Loader loader = Loader.open(dataset, options); Epoch epoch = loader.epoch(cycle)) {
                    for (Batch batch : epoch) {
                        try (batch) {
                            if (batch.index() == cycle % 3) {
                                break;
                            }
                        }
                    }
                }
            }
        }
        assertEquals(0, loaderThreads("pinshard-loader-").size(), "loader threads still alive");
        assertEquals(0, batches.liveRegions(), "batch regions still allocated");
        assertEquals(0, scratch.liveRegions(), "control regions still allocated");
        assertEquals(3000, batches.allocatedRegions(), "3 slots per loader");
    }

    @Test
    void batchesCanBeHeldReleasedOutOfOrderAndFromAnotherThread() throws Exception {
        Path dir = TestDatasets.write(temp.resolve("hold"), 40, Codec.RAW, 3, 1 << 20);
        LoaderOptions options = TestDatasets.small().batchSize(4).prefetch(3).order(SampleOrder.SEQUENTIAL).build();
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, options);
             Epoch epoch = loader.epoch(0)) {
            Batch first = epoch.next();
            Batch second = epoch.next();
            Batch third = epoch.next();
            assertEquals(8, third.sampleId(0));
            assertThrows(IllegalStateException.class, epoch::next, "every slot held");
            second.close(); // out of order
            Thread releaser = new Thread(first::close);
            releaser.start();
            releaser.join();
            first.close(); // idempotent
            Batch fourth = epoch.next();
            assertEquals(12, fourth.sampleId(0));
            assertNotSame(second, third);
            Batch fifth = epoch.next();
            assertEquals(16, fifth.sampleId(0));
            third.close();
            fourth.close();
            fifth.close();
            long next = 20;
            while (epoch.hasNext()) {
                try (Batch batch = epoch.next()) {
                    assertEquals(next, batch.sampleId(0));
                    next += 4;
                }
            }
            assertEquals(40, next);
        }
    }

    @Test
    void startingAnEpochWithBatchesStillHeldIsRefused() throws Exception {
        Path dir = TestDatasets.write(temp.resolve("held"), 20, Codec.RAW, 3, 1 << 20);
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, TestDatasets.small().build())) {
            Epoch epoch = loader.epoch(0);
            Batch held = epoch.next();
            assertThrows(IllegalStateException.class, () -> loader.epoch(1));
            held.close();
            try (Epoch next = loader.epoch(1)) {
                assertTrue(next.hasNext());
                next.next().close();
            }
        }
    }
}
