package io.pinshard.loader.work;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.loader.Epoch;
import io.pinshard.loader.Loader;
import io.pinshard.loader.TestDatasets;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.SampleOrder;
import io.pinshard.loader.options.SamplingOptions;
import io.pinshard.loader.ring.Batch;
import io.pinshard.loader.sample.EpochPlan;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
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
 * the loader delivers exactly the batches of the same loader over the local directory; and the limit held by the
 * workers' own mappings when its planning thread is late.
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
        WrittenDataset written = writeDataset();
        long total = written.bytes();
        long largest = written.largestShard();
        int shards = written.shards();
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

    /**
     * The cache limit must not depend on the prefetcher's planning thread keeping up with the consumer. Here it never
     * runs at all (the prefetcher is made, its planner not started: the latest a thread on a loaded machine can be),
     * while the workers map every shard themselves, batch by batch behind the consumer. Each mapping makes room for
     * itself, so the shards held stay within the limit, which here holds the shards the workers' batches span.
     * (It failed before: nothing evicted while the planner was late, every shard of the epoch stayed.)
     */
    @Test
    void workersMappingShardsWhileThePlannerIsLateStayWithinTheLimit() throws Exception {
        WrittenDataset written = writeDataset();
        // 4 batches of 4 (the consumer's next, and what the ring's 2 slots and the one past them may fill: the
        // prefetcher's busy window) span at most 3 shards of about ten records, and 4 with the short last one.
        long limit = 4 * written.largestShard();
        assertTrue(written.shards() >= 12 && limit < written.bytes() / 2,
            written.shards() + " shards, limit " + limit + " of " + written.bytes());
        SamplingOptions sampling = LoaderOptions.builder().batchSize(4).crop(8).workers(2).prefetch(2).seed(3)
            .order(SampleOrder.QUASI_RANDOM).quasiRandomWindow(240).quasiRandomInterleave(1).build().sampling();
        // downloads of 30 ms; the planner never runs, so its fetch thread stays idle and the test's thread maps all
        SlowSource source = new SlowSource(dir, limit, 1);
        try (Dataset dataset = Dataset.open(source)) {
            long[] firstRecord = new long[dataset.shardCount() + 1];
            for (int s = 0; s <= dataset.shardCount(); s++) {
                firstRecord[s] = s < dataset.shardCount() ? dataset.firstRecordOf(s) : dataset.size();
            }
            EpochPlan plan = new EpochPlan(dataset.size(), firstRecord, sampling);
            LoaderControl control = new LoaderControl("late", new LoaderRun(plan), 2);
            ShardPrefetcher prefetcher = ShardPrefetcher.forDataset(control, dataset, sampling, 2, firstRecord);
            assertNotNull(prefetcher, "a remote source has a prefetcher");
            try {
                RecordView view = new RecordView();
                for (int epoch = 0; epoch < 2; epoch++) {
                    plan.prepare(0, epoch);
                    control.epochStarted(epoch, 0);
                    for (long batch = 0; batch < plan.batchesPerEpoch(); batch++) {
                        for (int i = 0; i < plan.samplesIn(batch); i++) {
                            int record = plan.recordAt(0, batch * plan.batchSize() + i);
                            dataset.pin(record, view); // as a worker does: maps the shard if it is not mapped
                            view.unpin();
                            assertTrue(source.heldBytes.get() <= limit, "epoch " + epoch + " batch " + batch
                                + ": held " + source.heldBytes.get() + " bytes, limit " + limit);
                        }
                        control.delivered(plan.samplesIn(batch), 0);
                    }
                }
            } finally {
                prefetcher.stop();
            }
            assertTrue(source.heldBytesMost.get() > limit / 2, "the limit binds: " + source.heldBytesMost);
            assertEquals(Set.of(Thread.currentThread().getName().replaceAll("[0-9]+", "N")), source.threads,
                "mapped by the test's thread alone (no fetch was planned)");
        }
    }

    /** The test dataset's bytes, its largest shard's and its shard count. */
    private record WrittenDataset(long bytes, long largestShard, int shards) {
    }

    /** 240 raw records in shards of about ten into {@code dir}. */
    private WrittenDataset writeDataset() throws java.io.IOException {
        TestDatasets.write(dir, 240, Codec.RAW, 3, 32 << 10);
        try (Dataset local = Dataset.open(dir)) {
            return new WrittenDataset(local.manifest().bytes(), local.largestShardBytes(), local.shardCount());
        }
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
