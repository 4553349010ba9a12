package io.pinshard.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A closed dataset refuses every read with an exception naming it; closes are idempotent and race-safe. */
class DatasetLifetimeTest {
    @TempDir
    Path dir;

    @Test
    void recordAfterCloseThrowsNamingTheDataset() throws IOException {
        TestImages.writeDataset(dir, 6, 1 << 20);
        Dataset dataset = Dataset.open(dir);
        RecordView view = new RecordView();
        dataset.record(1, view);
        dataset.close();
        assertTrue(dataset.isClosed());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> dataset.record(0, new RecordView()));
        assertTrue(e.getMessage().contains(dir.toString()) && e.getMessage().contains("closed"), e.getMessage());
        assertThrows(IllegalStateException.class, dataset::acquire);
    }

    @Test
    void viewAndDecoderAfterCloseThrowInsteadOfReadingUnmappedMemory() throws IOException {
        TestImages.writeDataset(dir, 6, 1 << 20);
        Dataset dataset = Dataset.open(dir);
        RecordView raw = dataset.record(0, new RecordView());
        RecordView lz4 = dataset.record(1, new RecordView());
        int height = lz4.height();
        dataset.close();
        // Index fields were copied at wrap: still readable, no mapping touched.
        assertEquals(height, lz4.height());
        UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
        RecordDecoder decoder = new RecordDecoder(true);
        for (RecordView view : List.of(raw, lz4)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> decoder.decode(view, out, 0));
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
            assertThrows(IllegalStateException.class, view::key);
            assertThrows(IllegalStateException.class, () -> view.copyKey(out, 0));
            assertThrows(IllegalStateException.class, () -> view.payloadIntact(new io.pinshard.format.Crc32c()));
            assertThrows(IllegalStateException.class, view::payloadAddress);
            assertThrows(IllegalStateException.class, view::buffer);
        }
    }

    @Test
    void closingTwiceOrFromAnotherThreadIsHarmless() throws Exception {
        TestImages.writeDataset(dir, 6, 1 << 20);
        Dataset dataset = Dataset.open(dir);
        Thread other = new Thread(dataset::close);
        other.start();
        other.join();
        dataset.close();
        dataset.close();
        assertTrue(dataset.isClosed());
        assertTrue(dataset.shard(0).isClosed());
        dataset.shard(0).close();
        assertThrows(IllegalStateException.class, () -> dataset.shard(0).buffer());
    }

    @Test
    void closeRacingReadersNeverCrashes() throws Exception {
        TestImages.writeDataset(dir, 40, 4096); // several shards
        for (int round = 0; round < 20; round++) {
            Dataset dataset = Dataset.open(dir);
            int threads = 4;
            CountDownLatch started = new CountDownLatch(threads);
            AtomicReference<Throwable> unexpected = new AtomicReference<>();
            AtomicLong decoded = new AtomicLong();
            List<Thread> readers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread reader = new Thread(() -> {
                    RecordView view = new RecordView();
                    RecordDecoder decoder = new RecordDecoder(true);
                    UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
                    started.countDown();
                    try {
                        for (long i = 0; ; i++) {
                            decoder.decode(dataset.record(i % dataset.size(), view), out, 0);
                            view.key();
                            decoded.incrementAndGet();
                        }
                    } catch (IllegalStateException closed) {
                        if (!closed.getMessage().contains("closed")) {
                            unexpected.set(closed);
                        }
                    } catch (Throwable t2) {
                        unexpected.set(t2);
                    }
                });
                reader.start();
                readers.add(reader);
            }
            started.await();
            Thread.sleep(2);
            dataset.close();
            for (Thread reader : readers) {
                reader.join();
            }
            if (unexpected.get() != null) {
                throw new AssertionError("a reader failed other than with 'closed'", unexpected.get());
            }
        }
    }
}
