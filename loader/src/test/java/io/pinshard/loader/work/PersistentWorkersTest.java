package io.pinshard.loader.work;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.loader.Epoch;
import io.pinshard.loader.EpochContents;
import io.pinshard.loader.Loader;
import io.pinshard.loader.LoaderResourcesTest;
import io.pinshard.loader.TestDatasets;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.LoaderState;
import io.pinshard.loader.options.SampleOrder;
import io.pinshard.loader.ring.Batch;
import io.pinshard.reader.Dataset;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Persistent workers (issue 11): one set of threads per loader, epochs continued back to back with the next
 * epoch filled ahead, and that work discarded whenever the trainer asks for something else. Every epoch is
 * compared with the same epoch from a fresh loader, so a batch filled ahead for another epoch (or another
 * start batch) that was handed out would differ in its ids or pixels.
 */
class PersistentWorkersTest {
    private static final int RECORDS = 61; // 8 batches of 8, the last one partial

    @TempDir
    static Path temp;
    static Dataset dataset;

    @BeforeAll
    static void writeDataset() throws Exception {
        dataset = Dataset.open(TestDatasets.write(temp.resolve("raw"), RECORDS, Codec.RAW, 3, 16 << 10));
    }

    @AfterAll
    static void close() {
        dataset.close();
    }

    /** Epoch {@code epoch} from a loader that never ran before (no run to continue). */
    private static EpochContents fresh(LoaderOptions options, int epoch) {
        return EpochContents.fresh(dataset, options, epoch);
    }

    /** Waits until the workers have filled {@code samples} samples in all (so they are ahead of the consumer). */
    private static void awaitFilled(Loader loader, long samples) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (loader.samplesFilled() < samples) {
            assertTrue(System.nanoTime() < deadline, "the workers did not fill ahead: " + loader.samplesFilled());
            Thread.sleep(1);
        }
    }

    @Test
    void backToBackEpochsAreTheSameAsFreshOnesWhateverTheWorkers() {
        for (SampleOrder order : SampleOrder.values()) {
            for (int workers = 1; workers <= 3; workers++) {
                LoaderOptions options = TestDatasets.small().order(order).quasiRandomWindow(5).workers(workers)
                    .prefetch(workers + 1).build();
                try (Loader loader = Loader.open(dataset, options)) {
                    for (int e = 2; e < 6; e++) {
                        try (Epoch epoch = loader.epoch(e)) {
                            EpochContents contents = EpochContents.of(epoch);
                            fresh(options, e).assertSameAs(contents);
                        }
                    }
                }
            }
        }
    }

    @Test
    void workFilledAheadForTheNextEpochIsDiscardedWhenTheTrainerAsksForAnotherStart() throws Exception {
        LoaderOptions options = TestDatasets.small().prefetch(6).build();
        long perEpoch = RECORDS;
        try (Loader loader = Loader.open(dataset, options)) {
            // 0 to the end, then (epoch 1 filled ahead) epoch 3: the ring restarts, nothing of epoch 1 shows.
            try (Epoch epoch = loader.epoch(0)) {
                EpochContents.of(epoch);
            }
            awaitFilled(loader, perEpoch + 6 * 8);
            try (Epoch epoch = loader.epoch(3)) {
                fresh(options, 3).assertSameAs(EpochContents.of(epoch));
            }
            // The same epoch again.
            awaitFilled(loader, 2 * perEpoch + 6 * 8);
            try (Epoch epoch = loader.epoch(3)) {
                fresh(options, 3).assertSameAs(EpochContents.of(epoch));
            }
            // A resume of the next epoch from its third batch (not its first).
            awaitFilled(loader, 3 * perEpoch + 6 * 8);
            LoaderState state = new LoaderState(4, 2, options.sampling().seed(), 1, 0);
            try (Epoch epoch = loader.resume(state)) {
                EpochContents whole = fresh(options, 4);
                EpochContents tail = EpochContents.of(epoch);
                assertEquals(whole.ids().size() - 2, tail.ids().size());
                new EpochContents(whole.ids().subList(2, 8), whole.labels().subList(2, 8),
                    whole.pixels().subList(2, 8)).assertSameAs(tail);
            }
            // The next epoch after a resume continues the run.
            try (Epoch epoch = loader.epoch(5)) {
                fresh(options, 5).assertSameAs(EpochContents.of(epoch));
            }
            // An epoch closed early stops the run; the next epoch then starts afresh.
            try (Epoch epoch = loader.epoch(6)) {
                EpochContents.of(epoch, 3);
            }
            try (Epoch epoch = loader.epoch(7)) {
                fresh(options, 7).assertSameAs(EpochContents.of(epoch));
            }
        }
    }

    @Test
    void continuingAfterAResumeAtTheEndOfAnEpochDeliversTheNextEpoch() {
        LoaderOptions options = TestDatasets.small().build();
        try (Loader loader = Loader.open(dataset, options)) {
            try (Epoch epoch = loader.resume(new LoaderState(2, 8, options.sampling().seed(), 1, 0))) {
                assertEquals(8, epoch.batchesConsumed());
                assertTrue(!epoch.hasNext());
            }
            try (Epoch epoch = loader.epoch(3)) {
                fresh(options, 3).assertSameAs(EpochContents.of(epoch));
            }
        }
    }

    @Test
    void batchesKnowTheirEpochAndIndexAcrossTheBoundary() {
        try (Loader loader = Loader.open(dataset, TestDatasets.small().dropLast(true).build())) {
            for (int e = 0; e < 4; e++) {
                try (Epoch epoch = loader.epoch(e)) {
                    long index = 0;
                    for (Batch batch : epoch) {
                        try (batch) {
                            assertEquals(e, batch.epoch());
                            assertEquals(index++, batch.index());
                            assertEquals(8, batch.size());
                        }
                    }
                    assertEquals(7, index, "floor(61 / 8) full batches");
                }
            }
        }
    }

    @Test
    void anEpochIsRefusedOnceTheNextStartedAndItsCloseLeavesTheNextRunning() {
        try (Loader loader = Loader.open(dataset, TestDatasets.small().build())) {
            Epoch first = loader.epoch(0);
            EpochContents.of(first, 2);
            Epoch second = loader.epoch(1);
            IllegalStateException e = assertThrows(IllegalStateException.class, first::next);
            assertTrue(e.getMessage().contains("superseded"), e.getMessage());
            first.close(); // not the current epoch: the second goes on
            assertEquals(0, first.epoch(), "a superseded epoch still describes itself");
            fresh(TestDatasets.small().build(), 1).assertSameAs(EpochContents.of(second));
            second.close();
            Epoch third = loader.epoch(2);
            assertSame(first, third, "two Epoch objects per loader, handed out in turn");
            third.close();
        }
    }

    @Test
    void workersLiveForTheLoaderAndParkBetweenEpochs() throws Exception {
        LoaderOptions options = TestDatasets.small().workers(3).build();
        Loader loader = Loader.open(dataset, options);
        List<Thread> threads;
        try {
            try (Epoch epoch = loader.epoch(0)) {
                EpochContents.of(epoch, 2);
            }
            threads = LoaderResourcesTest.loaderThreads(loader.name() + "-");
            assertEquals(3, threads.size(), threads.toString());
            for (int e = 1; e < 20; e++) {
                try (Epoch epoch = loader.epoch(e)) {
                    EpochContents.of(epoch, e % 3 == 0 ? 1 : Long.MAX_VALUE);
                }
            }
            assertEquals(new HashSet<>(threads), new HashSet<>(LoaderResourcesTest.loaderThreads(loader.name() + "-")),
                "the same threads, none started per epoch");
            try (Epoch epoch = loader.epoch(20)) {
                EpochContents.of(epoch, 3);
            } // closed early: the workers stop and park
            // Parked by the worker itself (its blocker), not in the backoff's short parks (no blocker).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (Thread thread : threads) {
                while (!(LockSupport.getBlocker(thread) instanceof LoaderWorker)) {
                    assertTrue(System.nanoTime() < deadline, thread.getName() + " does not park: " + thread.getState());
                    Thread.sleep(1);
                }
            }
        } finally {
            loader.close();
        }
        for (Thread thread : threads) {
            assertTrue(!thread.isAlive(), thread.getName() + " outlives its loader");
        }
    }
}
