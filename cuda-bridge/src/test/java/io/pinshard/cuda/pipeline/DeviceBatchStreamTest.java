package io.pinshard.cuda.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.cuda.ManualCopyBackend;
import io.pinshard.cuda.TestBatch;
import io.pinshard.cuda.augment.AugmentSpec;
import io.pinshard.cuda.device.HostBackend;
import io.pinshard.datawait.DataWaitMonitor;
import io.pinshard.memory.HeapCounter;
import io.pinshard.memory.HostBatch;
import io.pinshard.memory.HostBatchSource;
import io.pinshard.memory.HostMemoryAllocator;
import java.util.ArrayList;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Prefetching, order, end of epoch and data-wait accounting of {@link DeviceBatchStream}. */
class DeviceBatchStreamTest {
    private final List<String> log = new ArrayList<>();
    private final List<TestBatch> made = new ArrayList<>();

    @AfterEach
    void free() {
        made.forEach(TestBatch::free);
    }

    private HostBatchSource source(int batches, long sleepMillis) {
        int[] next = {0};
        return () -> {
            if (next[0] == batches) {
                return null;
            }
            sleep(sleepMillis);
            TestBatch b = new TestBatch(HostMemoryAllocator.INSTANCE, "b" + next[0], next[0] * 2L, 2, 3, 3, next[0], log);
            made.add(b);
            log.add("produce b" + next[0]++);
            return b;
        };
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void prefetchesAheadAndKeepsLoaderOrder() {
        try (HostBackend backend = new HostBackend();
             DeviceBatchStream stream = new DeviceBatchStream(source(5, 0),
                 new DeviceBatchPipeline(backend, PipelineOptions.raw(2, 3, 3).withRingSize(3)), 2)) {
            DeviceBatch first = stream.next();
            assertTrue(log.contains("produce b2"), "two batches in flight behind the first: " + log);
            assertTrue(!log.contains("produce b3"), log.toString());
            List<Integer> firstLabels = new ArrayList<>();
            DeviceBatch batch = first;
            while (batch != null) {
                firstLabels.add(new UnsafeBuffer(batch.labels().data(), 8).getInt(0));
                batch.close();
                batch = stream.next();
            }
            assertEquals(List.of(0, 14, 28, 42, 56), firstLabels, "labels = sample id * 7, batches in order");
            assertNull(stream.next(), "stays at the end");
            assertEquals(5, stream.stats().batches());
        }
        for (TestBatch b : made) {
            assertEquals(1, b.releases, b.name);
        }
    }

    @Test
    void measuresLoaderWaitAndStepTime() {
        try (HostBackend backend = new HostBackend();
             DeviceBatchStream stream = new DeviceBatchStream(source(3, 20),
                 new DeviceBatchPipeline(backend, PipelineOptions.raw(2, 3, 3)), 1)) {
            DeviceBatch batch;
            while ((batch = stream.next()) != null) {
                sleep(10); // the trainer's step
                batch.close();
            }
            PipelineStats stats = stream.stats();
            assertTrue(stats.sourceWaitNanos() >= 3 * 20_000_000L, "blocked on the loader: " + stats);
            assertTrue(stats.stepNanos() >= 3 * 10_000_000L, "step time: " + stats);
            assertTrue(stats.dataWaitPercent() > 0 && stats.dataWaitPercent() < 100, stats.toString());
            assertEquals(2, stream.dataWait().steps(), "the guard counts a step per next() after the first");
        }
    }

    @Test
    void trainerHoldingEverySlotGetsAClearError() {
        try (HostBackend backend = new HostBackend();
             DeviceBatchStream stream = new DeviceBatchStream(source(10, 0),
                 new DeviceBatchPipeline(backend, PipelineOptions.raw(2, 3, 3).withRingSize(2)), 1)) {
            stream.next();
            stream.next();
            IllegalStateException e = assertThrows(IllegalStateException.class, stream::next);
            assertTrue(e.getMessage().contains("held by the trainer"), e.getMessage());
        }
    }

    @Test
    void rejectsPrefetchOutsideTheRing() {
        try (HostBackend backend = new HostBackend();
             DeviceBatchPipeline pipeline = new DeviceBatchPipeline(backend, PipelineOptions.raw(2, 3, 3).withRingSize(3))) {
            assertThrows(IllegalArgumentException.class, () -> new DeviceBatchStream(source(1, 0), pipeline, 0));
            assertThrows(IllegalArgumentException.class, () -> new DeviceBatchStream(source(1, 0), pipeline, 3));
        }
    }

    @Test
    void steadyStateAllocatesNothingOnTheHeap() {
        TestBatch[] ring = new TestBatch[4];
        for (int i = 0; i < ring.length; i++) {
            ring[i] = new TestBatch(HostMemoryAllocator.INSTANCE, "r" + i, i * 2L, 2, 3, 3, i, null);
            made.add(ring[i]);
        }
        int[] produced = {0};
        int total = 4_000;
        HostBatchSource source = () -> produced[0] == total ? null : ring[produced[0]++ % ring.length];
        AugmentSpec spec = AugmentSpec.jitter(0.1f, 0.1f, 0.1f, 3);
        try (HostBackend backend = new HostBackend();
             DeviceBatchStream stream = new DeviceBatchStream(source,
                 new DeviceBatchPipeline(backend, PipelineOptions.raw(2, 3, 3).withAugment(spec)), 2)) {
            for (int i = 0; i < 3_000; i++) {
                stream.next().close(); // warm-up
            }
            long before = HeapCounter.currentThreadAllocatedBytes();
            for (int i = 0; i < 1_000; i++) {
                stream.next().close();
            }
            long allocated = HeapCounter.currentThreadAllocatedBytes() - before;
            assertTrue(allocated < 1024, "1000 batches allocated " + allocated + " heap bytes");
        }
    }

    @Test
    void waitsForCopiesWhenTheLoaderHasNoFreeSlot() {
        ManualCopyBackend backend = new ManualCopyBackend(log);
        HostBatchSource plain = source(6, 0);
        HostBatchSource twoSlotLoader = new HostBatchSource() {
            @Override
            public HostBatch next() {
                long unreleased = made.stream().filter(b -> b.releases == 0).count();
                assertTrue(unreleased <= 1, "a two-slot loader asked for a batch while " + unreleased + " are held");
                return plain.next();
            }

            @Override
            public int maxUnreleasedBeforeNext() {
                return 1;
            }
        };
        try (DeviceBatchStream stream = new DeviceBatchStream(twoSlotLoader,
            new DeviceBatchPipeline(backend, PipelineOptions.raw(2, 3, 3).withRingSize(4)), 3)) {
            int seen = 0;
            DeviceBatch batch;
            while ((batch = stream.next()) != null) {
                batch.close();
                seen++;
            }
            assertEquals(6, seen);
            assertTrue(backend.synchronizations > 0, "copies were waited for: " + log);
        }
    }

    /** The default guard's rule (10 % over a window) on a window short enough to give each step a long sleep. */
    private static DataWaitMonitor shortWindowGuard() {
        return new DataWaitMonitor("device batches (test)", "hint", 0.10, 10, 2);
    }

    @Test
    void dataWaitGuardWarnsWhenTheTrainerStarvesAndNotOtherwise() {
        try (HostBackend backend = new HostBackend();
             DeviceBatchStream starved = new DeviceBatchStream(source(16, 4),
                 new DeviceBatchPipeline(backend, PipelineOptions.raw(2, 3, 3)), 1, shortWindowGuard())) {
            for (DeviceBatch b = starved.next(); b != null; b = starved.next()) {
                b.close(); // no step time at all: every step is waiting
            }
            assertTrue(starved.dataWait().warned(), "waited " + starved.dataWait().dataWaitPercent() + " %");
            assertTrue(starved.dataWait().dataWaitPercent() > 50, starved.dataWait().dataWaitPercent() + " %");
        }
        try (HostBackend backend = new HostBackend();
             DeviceBatchStream fed = new DeviceBatchStream(source(16, 0),
                 new DeviceBatchPipeline(backend, PipelineOptions.raw(2, 3, 3)), 1, shortWindowGuard())) {
            for (DeviceBatch b = fed.next(); b != null; b = fed.next()) {
                // The step: long enough that even a loaded machine's next() (tenths of a ms to a few ms here) stays
                // under 10 % of it.
                sleep(60);
                b.close();
            }
            assertTrue(!fed.dataWait().warned(), "waited " + fed.dataWait().dataWaitPercent() + " %");
        }
    }

    @Test
    void restartContinuesWithTheNextSourceOnlyAfterTheCurrentOneEnded() {
        try (HostBackend backend = new HostBackend();
             DeviceBatchStream stream = new DeviceBatchStream(source(2, 0),
                 new DeviceBatchPipeline(backend, PipelineOptions.raw(2, 3, 3)), 1)) {
            stream.next().close();
            assertThrows(IllegalStateException.class, () -> stream.restart(source(1, 0)), "batches still to come");
            stream.next().close();
            assertNull(stream.next());
            stream.restart(source(3, 0));
            int seen = 0;
            for (DeviceBatch b = stream.next(); b != null; b = stream.next()) {
                b.close();
                seen++;
            }
            assertEquals(3, seen);
            assertEquals(5, stream.stats().batches(), "statistics carry over");
        }
    }
}
