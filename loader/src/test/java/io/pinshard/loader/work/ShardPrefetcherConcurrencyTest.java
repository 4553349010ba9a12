package io.pinshard.loader.work;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.loader.Epoch;
import io.pinshard.loader.Loader;
import io.pinshard.loader.TestDatasets;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.SampleOrder;
import io.pinshard.loader.ring.Batch;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.ShardSource;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The prefetcher's fetch threads against a source whose every acquire takes 30 ms (a download): shards are
 * fetched several at a time but never more than the source allows, by the fetch threads, within the limit, and
 * the loader delivers exactly the batches of the same loader over the local directory.
 */
class ShardPrefetcherConcurrencyTest {
    @TempDir
    Path dir;

    /** A local directory served as if every shard were a 30 ms download; counts downloads in flight. */
    static final class SlowSource implements ShardSource {
        final Path directory;
        final DatasetManifest manifest;
        final long limit;
        final int concurrency;
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger mostInFlight = new AtomicInteger();
        final AtomicIntegerArray holds;
        final AtomicInteger heldBytesMost = new AtomicInteger();
        final AtomicInteger heldBytes = new AtomicInteger();
        final Set<String> threads = ConcurrentHashMap.newKeySet();

        SlowSource(Path directory, long limit, int concurrency) {
            this.directory = directory;
            this.manifest = Json.readManifest(directory);
            this.limit = limit;
            this.concurrency = concurrency;
            this.holds = new AtomicIntegerArray(manifest.shards().size());
        }

        @Override public String location() { return "slow://" + directory; }
        @Override public Path directory() { return directory; }
        @Override public DatasetManifest manifest() { return manifest; }
        @Override public boolean local() { return false; }
        @Override public long limitBytes() { return limit; }
        @Override public long bytesFetched() { return 0; }
        @Override public int fetchConcurrency() { return concurrency; }

        @Override
        public Path acquire(int index) {
            mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            threads.add(Thread.currentThread().getName().replaceAll("[0-9]+", "N"));
            try {
                Thread.sleep(30);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            } finally {
                inFlight.decrementAndGet();
            }
            assertEquals(0, holds.getAndSet(index, 1), "shard " + index + " acquired twice");
            heldBytesMost.accumulateAndGet(heldBytes.addAndGet((int) manifest.shards().get(index).bytes()), Math::max);
            return directory.resolve(manifest.shards().get(index).file());
        }

        @Override
        public void release(int index) {
            assertEquals(1, holds.getAndSet(index, 0), "released shard " + index + " that was not held");
            heldBytes.addAndGet((int) -manifest.shards().get(index).bytes());
        }

        @Override
        public void close() {
        }
    }

    @Test
    void shardsAreFetchedSeveralAtATimeWithinTheSourcesConcurrencyAndTheLimit() throws Exception {
        TestDatasets.write(dir, 240, Codec.RAW, 3, 32 << 10); // shards of about ten records
        long total;
        long largest;
        int shards;
        try (Dataset local = Dataset.open(dir)) {
            total = local.manifest().bytes();
            shards = local.shardCount();
            largest = local.largestShardBytes();
        }
        assertTrue(shards >= 12, "shards: " + shards);
        long limit = Math.max(total / 2, 8 * largest);
        LoaderOptions options = LoaderOptions.builder().batchSize(4).crop(8).workers(2).prefetch(2).seed(3)
            .order(SampleOrder.QUASI_RANDOM).quasiRandomInterleave(4).build(); // a group: 4 shards at once
        List<Long> expected = sampleIds(Dataset.open(dir), options);
        SlowSource source = new SlowSource(dir, limit, 3);
        List<Long> got = sampleIds(Dataset.open(source), options);
        assertEquals(expected, got, "the same batches as from the local directory");
        assertTrue(source.threads.contains("pinshard-loader-N-fetch-N"), "fetched by: " + source.threads);
        // the three fetch threads, and a worker that found its shard missing and fetched it itself
        assertTrue(source.mostInFlight.get() >= 2 && source.mostInFlight.get() <= 3 + 2,
            "downloads in flight at most: " + source.mostInFlight.get());
        // in-flight batches may keep one shard past the limit per worker
        assertTrue(source.heldBytesMost.get() <= limit + 2 * largest, "held " + source.heldBytesMost.get()
            + " bytes, limit " + limit);
    }

    private static List<Long> sampleIds(Dataset dataset, LoaderOptions options) {
        List<Long> ids = new ArrayList<>();
        try (dataset; Loader loader = Loader.open(dataset, options)) {
            for (int e = 0; e < 2; e++) {
                try (Epoch epoch = loader.epoch(e)) {
                    for (Batch batch : epoch) {
                        try (batch) {
                            for (int i = 0; i < batch.size(); i++) {
                                ids.add(batch.sampleId(i));
                            }
                        }
                    }
                }
            }
        }
        return ids;
    }
}
