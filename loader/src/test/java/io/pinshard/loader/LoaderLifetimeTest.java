package io.pinshard.loader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.fixtures.PoisoningAllocator;
import io.pinshard.format.Codec;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.LoaderState;
import io.pinshard.loader.options.SampleOrder;
import io.pinshard.loader.ring.Batch;
import io.pinshard.reader.Dataset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Use after close or release (issue 10): a batch, epoch or loader used after its memory was given back, or
 * after the dataset under it was closed, throws an exception naming what was closed and never reads freed
 * memory. Memory comes from {@link PoisoningAllocator}, so a read of a closed region returns 0x7F bytes
 * (caught here) rather than crashing the test JVM.
 */
class LoaderLifetimeTest {
    private static final int RECORDS = 64;
    private static final int CLASSES = 5; // TestDatasets labels record % 5

    @TempDir
    static Path temp;
    private static Path dir;

    private PoisoningAllocator memory;

    @BeforeEach
    void setUp() throws Exception {
        if (dir == null) {
            dir = TestDatasets.write(temp.resolve("lifetime"), RECORDS, Codec.RAW, 3, 1 << 20);
        }
        memory = new PoisoningAllocator();
    }

    @AfterEach
    void tearDown() {
        memory.freeAll();
    }

    private LoaderOptions options(int prefetch) {
        return TestDatasets.small().batchSize(4).prefetch(prefetch).allocator(memory).scratchAllocator(memory).build();
    }

    private static List<Executable> memoryAccessors(Batch batch) {
        return List.of(() -> batch.label(0), () -> batch.sampleId(0), batch::address, () -> batch.imageAddress(0),
            batch::labelsAddress, batch::sampleIdsAddress, batch::region);
    }

    private static void assertRefused(Executable use, String... named) {
        IllegalStateException e = assertThrows(IllegalStateException.class, use);
        for (String part : named) {
            assertTrue(e.getMessage().contains(part), () -> "'" + e.getMessage() + "' should name " + part);
        }
    }

    @Test
    void batchReadAfterReleaseThrowsNamingTheBatch() {
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, options(3));
             Epoch epoch = loader.epoch(0)) {
            Batch batch = epoch.next();
            assertTrue(batch.label(0) >= 0);
            batch.close();
            for (Executable accessor : memoryAccessors(batch)) {
                assertRefused(accessor, "batch 0 of epoch 0", "released");
            }
            batch.close(); // twice: harmless
            assertEquals(1, epoch.next().index(), "the ring goes on after the refused reads");
        }
    }

    @Test
    void batchReadAfterLoaderClosedThrowsNamingTheLoader() {
        try (Dataset dataset = Dataset.open(dir)) {
            Loader loader = Loader.open(dataset, options(3));
            Epoch epoch = loader.epoch(0);
            Batch held = epoch.next();
            loader.close();
            for (Executable accessor : memoryAccessors(held)) {
                assertRefused(accessor, "batch 0 of epoch 0", loader.name(), "closed");
            }
            held.close(); // after the loader: harmless
            assertRefused(epoch::next, loader.name(), "closed");
            epoch.close();
            loader.close();
        }
    }

    @Test
    void readsRacingTheBatchsReleaseNeverReturnWhatWorkersWriteNext() throws Exception {
        LoaderOptions options = TestDatasets.small().batchSize(4).prefetch(2).order(SampleOrder.SEQUENTIAL).build();
        for (int round = 0; round < 20; round++) {
            try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, options);
                 Epoch epoch = loader.epoch(0)) {
                Batch first = epoch.next(); // records 0..3; once released, workers refill its slot with 8..11
                CountDownLatch reading = new CountDownLatch(1);
                AtomicReference<Throwable> end = new AtomicReference<>();
                Thread reader = new Thread(() -> {
                    try {
                        for (long reads = 0; ; reads++) {
                            for (int i = 0; i < 4; i++) {
                                long id = first.sampleId(i);
                                if (id != i) {
                                    throw new AssertionError("read record " + id + " as image " + i + " of batch 0");
                                }
                            }
                            if (reads == 100) {
                                reading.countDown();
                            }
                        }
                    } catch (Throwable t) {
                        end.set(t);
                        reading.countDown();
                    }
                });
                reader.start();
                reading.await();
                first.close();
                reader.join(TimeUnit.SECONDS.toMillis(30));
                assertFalse(reader.isAlive(), "the reader was never refused");
                assertInstanceOf(IllegalStateException.class, end.get(), String.valueOf(end.get()));
                assertTrue(end.get().getMessage().contains("released"), end.get().getMessage());
            }
        }
    }

    @Test
    void loaderUsedAfterCloseThrowsNamingIt() {
        try (Dataset dataset = Dataset.open(dir)) {
            Loader loader = Loader.open(dataset, options(3));
            LoaderState state;
            try (Epoch epoch = loader.epoch(0)) {
                epoch.next().close();
                state = epoch.state();
            }
            loader.close();
            assertRefused(() -> loader.epoch(1), loader.name(), "closed");
            assertRefused(() -> loader.resume(state), loader.name(), "closed");
            assertRefused(loader::stats, loader.name(), "closed");
            loader.close();
        }
    }

    @Test
    void epochIteratedAfterItsDatasetWasClosedStopsWithAClearError() throws Exception {
        Dataset dataset = Dataset.open(dir);
        try (Loader loader = Loader.open(dataset, options(3))) {
            Epoch epoch = loader.epoch(0);
            epoch.next().close();
            dataset.close();
            LoaderException e = assertThrows(LoaderException.class, epoch::next);
            assertTrue(e.getMessage().contains("dataset " + dir) && e.getMessage().contains("closed"), e.getMessage());
            assertWorkersExit(loader);
            assertRefused(() -> loader.epoch(1), "dataset " + dir, "closed");
            epoch.close();
        }
        assertRefused(() -> Loader.open(dataset, options(3)), "dataset " + dir, "closed");
    }

    @Test
    void datasetClosedWhileWorkersDecodeStopsTheLoaderWithoutACrash() throws Exception {
        for (int round = 0; round < 20; round++) {
            Dataset dataset = Dataset.open(dir);
            try (Loader loader = Loader.open(dataset, options(8))) {
                Epoch epoch = loader.epoch(round);
                dataset.close(); // while the workers fill the ring
                LoaderException e = assertThrows(LoaderException.class, () -> {
                    while (epoch.hasNext()) {
                        epoch.next().close();
                    }
                });
                assertTrue(e.getMessage().contains("dataset " + dir) && e.getMessage().contains("closed"),
                    e.getMessage());
                assertWorkersExit(loader);
            }
        }
    }

    private static void assertWorkersExit(Loader loader) throws InterruptedException {
        for (Thread worker : LoaderResourcesTest.loaderThreads(loader.name() + "-worker-")) {
            worker.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(worker.isAlive(), worker.getName() + " still runs after the dataset was closed");
        }
    }

    @Test
    void readsAndReleasesRacingLoaderCloseOnOtherThreadsNeverSeeFreedMemory() throws Exception {
        for (int round = 0; round < 10; round++) {
            try (Dataset dataset = Dataset.open(dir)) {
                Loader loader = Loader.open(dataset, options(4));
                Epoch epoch = loader.epoch(round);
                Batch[] held = {epoch.next(), epoch.next(), epoch.next()};
                int readers = 3;
                CountDownLatch reading = new CountDownLatch(readers);
                List<Thread> threads = new ArrayList<>();
                List<AtomicReference<Throwable>> ends = new ArrayList<>();
                for (int t = 0; t < readers; t++) {
                    AtomicReference<Throwable> end = new AtomicReference<>();
                    ends.add(end);
                    Batch batch = held[t];
                    threads.add(new Thread(() -> end.set(readUntilRefused(batch, reading)), "reader-" + t));
                }
                // Closers racing the loader's close: a batch release and two more loader closes.
                AtomicReference<Throwable> closerFailure = new AtomicReference<>();
                Runnable[] closers = {held[2]::close, loader::close, loader::close};
                for (Runnable closer : closers) {
                    threads.add(new Thread(() -> {
                        try {
                            reading.await();
                            closer.run();
                        } catch (Throwable e) {
                            closerFailure.set(e);
                        }
                    }, "closer"));
                }
                threads.forEach(Thread::start);
                reading.await();
                loader.close();
                for (Thread thread : threads) {
                    thread.join(TimeUnit.SECONDS.toMillis(30));
                    assertFalse(thread.isAlive(), thread.getName() + " hangs");
                }
                assertEquals(null, closerFailure.get(), "closing twice, from other threads, is harmless");
                for (AtomicReference<Throwable> end : ends) {
                    Throwable refused = end.get();
                    assertNotNull(refused);
                    assertInstanceOf(IllegalStateException.class, refused, refused::toString);
                    assertTrue(refused.getMessage().contains("closed") || refused.getMessage().contains("released"),
                        refused.getMessage());
                }
                for (Batch batch : held) {
                    batch.close();
                }
                epoch.close();
            }
            memory.freeAll();
        }
    }

    /** Reads labels and ids until refused; returns the refusal, or an AssertionError for a poisoned value. */
    private static Throwable readUntilRefused(Batch batch, CountDownLatch reading) {
        boolean counted = false;
        try {
            for (long reads = 0; ; reads++) {
                for (int i = 0; i < 4; i++) {
                    int label = batch.label(i);
                    long id = batch.sampleId(i);
                    if (label < 0 || label >= CLASSES || id < 0 || id >= RECORDS) {
                        return new AssertionError("read freed memory: label " + label + ", id " + id);
                    }
                }
                if (!counted && reads == 100) {
                    reading.countDown();
                    counted = true;
                }
            }
        } catch (Throwable refused) {
            return refused;
        } finally {
            if (!counted) {
                reading.countDown();
            }
        }
    }

    @Test
    void consumerIteratingWhileAnotherThreadClosesTheLoaderGetsIllegalStateException() throws Exception {
        try (Dataset dataset = Dataset.open(dir)) {
            Loader loader = Loader.open(dataset, options(3));
            CountDownLatch started = new CountDownLatch(10);
            AtomicReference<Throwable> end = new AtomicReference<>();
            Thread consumer = new Thread(() -> {
                try {
                    for (int e = 0; ; e++) {
                        try (Epoch epoch = loader.epoch(e)) {
                            for (Batch batch : epoch) {
                                try (batch) {
                                    int label = batch.label(0);
                                    if (label < 0 || label >= CLASSES) {
                                        throw new AssertionError("read freed memory: label " + label);
                                    }
                                    started.countDown();
                                }
                            }
                        }
                    }
                } catch (Throwable t) {
                    end.set(t);
                }
            }, "consumer");
            consumer.start();
            started.await();
            loader.close();
            consumer.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(consumer.isAlive(), "the consumer hangs after the loader was closed");
            assertInstanceOf(IllegalStateException.class, end.get(), String.valueOf(end.get()));
            assertTrue(end.get().getMessage().contains(loader.name()), end.get().getMessage());
        }
    }
}
