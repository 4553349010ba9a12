package io.pinshard.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Crc32c;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streamed dataset (a {@link ShardSource} that is not local, here over a directory) under concurrent reads and
 * evictions: pinned reads are never unmapped under them, unpinned ones remap, every acquire is matched by one
 * release, and close unmaps and closes the source.
 */
class StreamedDatasetEvictionTest {
    @TempDir
    Path dir;

    /** The shards of a local directory, served as if each had to be fetched; counts acquires and releases. */
    static final class CountingSource implements ShardSource {
        final Path directory;
        final DatasetManifest manifest;
        final AtomicIntegerArray holds;
        final AtomicInteger acquires = new AtomicInteger();
        final AtomicBoolean closed = new AtomicBoolean();

        CountingSource(Path directory) {
            this.directory = directory;
            this.manifest = Json.readManifest(directory);
            this.holds = new AtomicIntegerArray(manifest.shards().size());
        }

        @Override public String location() { return "test://" + directory; }
        @Override public Path directory() { return directory; }
        @Override public DatasetManifest manifest() { return manifest; }
        @Override public boolean local() { return false; }
        @Override public long limitBytes() { return Long.MAX_VALUE; }
        @Override public long bytesFetched() { return 0; }

        @Override
        public Path acquire(int index) {
            acquires.incrementAndGet();
            holds.set(index, 1); // held at most once, like a cache
            return directory.resolve(manifest.shards().get(index).file());
        }

        @Override
        public void release(int index) {
            assertEquals(1, holds.getAndSet(index, 0), "released shard " + index + " that was not held");
        }

        @Override
        public void close() {
            closed.set(true);
        }
    }

    @Test
    void pinnedReadsSurviveConcurrentEvictionsAndEveryAcquireIsReleased() throws Exception {
        TestImages.writeDataset(dir, 48, 1024);
        CountingSource source = new CountingSource(dir);
        Dataset dataset = Dataset.open(source);
        assertEquals(1, dataset.fetchConcurrency(), "a source that fetches");
        assertTrue(dataset.shardCount() >= 4, "shards: " + dataset.shardCount());
        assertFalse(dataset.isLoaded(0));
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger reads = new AtomicInteger();
        Thread[] readers = new Thread[2];
        for (int t = 0; t < readers.length; t++) {
            long seed = t;
            readers[t] = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                RecordView view = new RecordView();
                Crc32c crc = new Crc32c();
                java.nio.ByteBuffer scratch = java.nio.ByteBuffer.allocateDirect(64);
                long scratchAddress = new org.agrona.concurrent.UnsafeBuffer(scratch).addressOffset();
                try {
                    while (!stop.get()) {
                        long record = random.nextLong(dataset.size());
                        dataset.acquire();
                        try {
                            dataset.pin(record, view);
                            try {
                                Thread.yield(); // give the evictor a chance to try this very shard
                                assertTrue(view.payloadIntact(crc), "record " + record);
                                view.copyPayload(0, Math.min(64, view.payloadLength()), scratchAddress);
                            } finally {
                                view.unpin();
                            }
                        } finally {
                            dataset.release();
                        }
                        reads.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            readers[t].start();
        }
        SplittableRandom random = new SplittableRandom(99);
        int evicted = 0;
        long until = System.nanoTime() + 1_500_000_000L;
        while (System.nanoTime() < until) {
            if (dataset.evict(random.nextInt(dataset.shardCount()))) {
                evicted++;
            }
            Thread.onSpinWait();
        }
        stop.set(true);
        for (Thread reader : readers) {
            reader.join();
        }
        assertEquals(List.of(), failures);
        assertTrue(evicted > 10 && reads.get() > 100, evicted + " evictions, " + reads.get() + " reads");
        assertTrue(source.acquires.get() > dataset.shardCount(), "evicted shards were fetched again");
        for (int s = 0; s < dataset.shardCount(); s++) {
            assertEquals(dataset.isLoaded(s) ? 1 : 0, source.holds.get(s), "shard " + s);
        }
        dataset.close();
        assertTrue(source.closed.get());
        IllegalStateException closed = assertThrows(IllegalStateException.class, () -> dataset.shard(0));
        assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
    }

    @Test
    void aReadThroughAnUnpinnedViewOfAnEvictedShardThrowsInsteadOfReadingUnmappedMemory() throws IOException {
        TestImages.writeDataset(dir, 12, 4096);
        try (Dataset dataset = Dataset.open(new CountingSource(dir))) {
            RecordView view = dataset.record(0, new RecordView());
            assertTrue(dataset.evict(0));
            IllegalStateException e = assertThrows(IllegalStateException.class, view::payloadAddress);
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
            assertThrows(IllegalStateException.class, () -> view.payloadIntact(new Crc32c()));
            assertTrue(dataset.record(0, new RecordView()).payloadIntact(new Crc32c()), "mapped again on demand");
        }
    }
}
