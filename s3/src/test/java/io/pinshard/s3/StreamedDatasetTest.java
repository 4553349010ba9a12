package io.pinshard.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Crc32c;
import io.pinshard.format.DatasetManifest;
import io.pinshard.loader.Epoch;
import io.pinshard.loader.Loader;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.SampleOrder;
import io.pinshard.loader.ring.Batch;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.reader.RecordView;
import io.pinshard.testkit.S3ServerExtension;
import io.pinshard.testkit.S3TestServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/** Datasets opened from a real S3 server on loopback: records, the loader, the cache limit, the cache's files. */
@org.junit.jupiter.api.Tag("process")
class StreamedDatasetTest {
    private static final int RECORDS = 240;
    @RegisterExtension
    static final S3ServerExtension server = new S3ServerExtension();
    private static S3Client s3;
    private static Path local;
    private static S3Location location;

    @TempDir
    static Path temp;

    @BeforeAll
    static void upload() throws Exception {
        s3 = S3Clients.create(S3TestSettings.of(server).build());
        local = S3TestData.write(temp.resolve("local"), RECORDS, 64 << 10);
        location = S3TestData.upload(s3, local, "streamed", "sets/small");
    }

    @AfterAll
    static void stop() throws Exception {
        s3.close();
    }

    private static Dataset open(Path cache, long limit) {
        return Dataset.open(S3ShardSource.open(location, S3TestSettings.of(server).build(), cache, limit));
    }

    @Test
    void datasetOpenOfAnS3LocationGoesThroughTheProviderIntoTheDatasetsCacheFolder() throws Exception {
        Path base = temp.resolve("cache-provider");
        Map<String, String> options = Map.of("endpoint", server.endpoint().toString(), "pathStyle", "true",
            "region", "us-east-1", "cacheDir", base.toString());
        // Credentials come from the SDK's standard configuration only, never from the options.
        System.setProperty("aws.accessKeyId", S3TestServer.ACCESS_KEY);
        System.setProperty("aws.secretAccessKey", S3TestServer.SECRET_KEY);
        try (Dataset remote = Dataset.open(location.toString(), options); Dataset here = Dataset.open(local)) {
            assertTrue(remote.fetchConcurrency() > 0, "streamed: its shards are fetched");
            assertEquals(here.size(), remote.size());
            RecordView a = new RecordView();
            RecordView b = new RecordView();
            remote.record(RECORDS - 1, a);
            here.record(RECORDS - 1, b);
            assertEquals(b.key(), a.key());
            Path folder = S3ShardSource.cacheDirectory(base, location, S3TestSettings.of(server).build());
            assertTrue(folder.startsWith(base) && java.nio.file.Files.isDirectory(folder),
                "the shard went to the dataset's folder under the base: " + folder);
        } finally {
            System.clearProperty("aws.accessKeyId");
            System.clearProperty("aws.secretAccessKey");
        }
    }

    @Test
    void everyRecordReadsAsFromTheLocalCopyAndTheCacheHoldsOnlyVerifiedShards() throws Exception {
        Path cache = temp.resolve("cache-records");
        try (Dataset remote = open(cache, Long.MAX_VALUE); Dataset here = Dataset.open(local)) {
            assertTrue(remote.fetchConcurrency() > 0, "streamed: its shards are fetched");
            assertEquals(here.size(), remote.size());
            assertTrue(here.shardCount() >= 6, "the test needs several shards: " + here.shardCount());
            assertFalse(remote.isLoaded(0), "nothing is fetched at open");
            assertEquals("s3://streamed/sets/small", remote.location());
            Crc32c crc = new Crc32c();
            RecordView a = new RecordView();
            RecordView b = new RecordView();
            for (long r = RECORDS - 1; r >= 0; r--) {
                remote.record(r, a);
                here.record(r, b);
                assertEquals(b.key(), a.key());
                assertEquals(b.storedCrc(), a.storedCrc());
                assertTrue(a.payloadIntact(crc), "record " + r);
            }
            assertEquals(here.manifest().bytes(), remote.bytesFetched(), "each shard fetched once");
            DatasetManifest manifest = remote.manifest();
            ShardCache files = ShardCache.open(cache);
            try {
                for (int s = 0; s < manifest.shards().size(); s++) {
                    Path file = files.shardFile(manifest.shards().get(s));
                    assertEquals(List.of(), new DatasetVerifier(true, false).verifyShardFile(file, "cache", manifest, s));
                }
            } finally {
                files.close();
            }
        }
        try (Dataset again = open(cache, Long.MAX_VALUE)) {
            again.record(0, new RecordView());
            assertEquals(0, again.bytesFetched(), "a warm cache serves a new process without a download");
        }
    }

    @Test
    void aNewVersionUnderThePrefixEvictsTheOldVersionsShardsThatNobodyHolds() throws Exception {
        Path cache = temp.resolve("cache-versions");
        Path first = S3TestData.write(temp.resolve("v1"), 60, 16 << 10);
        S3Location versioned = S3TestData.upload(s3, first, "streamed", "sets/versioned");
        DatasetManifest old;
        try (Dataset v1 = Dataset.open(S3ShardSource.open(versioned, S3TestSettings.of(server).build(), cache, Long.MAX_VALUE))) {
            old = v1.manifest();
            assertTrue(old.shards().size() >= 3, "shards: " + old.shards().size());
            for (long r = 0; r < v1.size(); r++) {
                v1.record(r, new RecordView());
            }
        }
        ShardCache files = ShardCache.open(cache);
        try (Dataset holder = Dataset.open(S3ShardSource.open(versioned, S3TestSettings.of(server).build(), cache,
            Long.MAX_VALUE))) {
            holder.record(0, new RecordView()); // holds v1's first shard through the new version's open
            // other shard boundaries: every shard of the new version differs from the old ones
            S3TestData.upload(s3, S3TestData.write(temp.resolve("v2"), 61, 40 << 10), "streamed", "sets/versioned");
            try (Dataset v2 = Dataset.open(S3ShardSource.open(versioned, S3TestSettings.of(server).build(), cache,
                Long.MAX_VALUE))) {
                assertEquals(61, v2.size());
                for (DatasetManifest.ShardEntry entry : v2.manifest().shards()) {
                    assertFalse(old.shards().contains(entry), "the test needs new shards: " + entry);
                }
                for (int s = 0; s < old.shards().size(); s++) {
                    assertEquals(s == 0, java.nio.file.Files.exists(files.shardFile(old.shards().get(s))),
                        "v1 shard " + s + ": only the held one stays");
                }
            }
        }
        try (Dataset v2 = Dataset.open(S3ShardSource.open(versioned, S3TestSettings.of(server).build(), cache,
            Long.MAX_VALUE))) {
            assertFalse(java.nio.file.Files.exists(files.shardFile(old.shards().get(0))), "let go, then evicted");
            v2.record(60, new RecordView());
        } finally {
            files.close();
        }
    }

    @Test
    void theServiceLoaderOpensS3LocationsWithOptions() {
        String before = System.getProperty("aws.accessKeyId");
        System.setProperty("aws.accessKeyId", S3TestServer.ACCESS_KEY);
        System.setProperty("aws.secretAccessKey", S3TestServer.SECRET_KEY);
        try (Dataset dataset = Dataset.open(location.toString(), Map.of("endpoint", server.endpoint().toString(),
                "pathStyle", "true", "region", "us-east-1", "cacheDir", temp.resolve("cache-spi").toString()))) {
            assertTrue(dataset.fetchConcurrency() > 0, "streamed: its shards are fetched");
            assertEquals(RECORDS, dataset.size());
            assertEquals("img/7", dataset.record(7, new RecordView()).key());
        } finally {
            if (before == null) {
                System.clearProperty("aws.accessKeyId");
                System.clearProperty("aws.secretAccessKey");
            }
        }
    }

    @Test
    void theLoaderStreamsQuasiRandomWindowsWithinAQuarterOfTheDatasetFetchingEachShardOncePerEpoch() throws Exception {
        Path cache = temp.resolve("cache-loader");
        long total;
        long largest;
        try (Dataset here = Dataset.open(local)) {
            total = here.manifest().bytes();
            largest = here.largestShardBytes();
        }
        long limit = Math.max(total / 4, 2 * largest);
        assertTrue(limit < total / 2, "a quarter of the dataset holds two shards: " + limit + " of " + total);
        LoaderOptions options = LoaderOptions.builder().batchSize(8).crop(16).workers(2).prefetch(2).seed(7)
            .order(SampleOrder.QUASI_RANDOM).quasiRandomWindow(RECORDS).quasiRandomInterleave(1).build();
        List<Long> expected = sampleIds(Dataset.open(local), options, 2, null, null);
        long[] maxCached = new long[1];
        S3ShardSource source = S3ShardSource.open(location, S3TestSettings.of(server).build(), cache, limit);
        try (Dataset remote = Dataset.open(source)) {
            List<Long> got = sampleIds(remote, options, 2, cache.resolve("shards"), maxCached);
            assertEquals(expected, got, "the same batches as from the local copy");
            for (int s = 0; s < remote.shardCount(); s++) {
                // once per epoch, and once more for the next epoch's first windows fetched during the last
                assertTrue(source.downloads(s) <= 3, "shard " + s + " downloaded " + source.downloads(s) + " times");
            }
            // Each epoch fetches every shard at most once; what the limit still held at an epoch's end may serve
            // the next one's first windows without a new download. The prefetcher may already be fetching a third
            // epoch's first shards when the second ends (persistent workers fill ahead), at most the limit's worth:
            // how much depends on thread timing, so that is the bound, not zero.
            long fetched = remote.bytesFetched();
            assertTrue(fetched <= 2 * total + limit && fetched >= 2 * total - limit, "fetched " + fetched
                + " bytes in two epochs of a " + total + "-byte dataset under a " + limit + "-byte limit");
        }
        // The shards under the ring's in-flight batches are kept even past the limit: at most one shard over here.
        assertTrue(maxCached[0] <= limit + largest, "the cache held " + maxCached[0] + " bytes, limit " + limit);
    }

    @Test
    void randomOrderOverADatasetLargerThanTheLimitIsRefusedWithTheReason() {
        try (Dataset remote = open(temp.resolve("cache-random"), 100_000)) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> Loader.open(remote, LoaderOptions.builder().batchSize(16).crop(16).workers(1).build()));
            assertTrue(refused.getMessage().contains("quasi-random"), refused.getMessage());
            IllegalArgumentException tiny = assertThrows(IllegalArgumentException.class, () -> Loader.open(remote,
                LoaderOptions.builder().batchSize(16).crop(16).workers(1).order(SampleOrder.QUASI_RANDOM).build()));
            assertTrue(tiny.getMessage().contains("two of its largest shards"), tiny.getMessage());
        }
        // Interleaved windows need their shards at once: the automatic interleave is refused under a quarter of
        // the dataset, naming the interleave that fits; that one opens.
        long largest;
        long total;
        try (Dataset here = Dataset.open(local)) {
            largest = here.largestShardBytes();
            total = here.manifest().bytes();
        }
        long limit = 3 * largest;
        assertTrue(limit < total, "the test needs a limit below the dataset: " + limit + " of " + total);
        LoaderOptions.Builder quasi = LoaderOptions.builder().batchSize(8).crop(16).workers(1)
            .order(SampleOrder.QUASI_RANDOM).quasiRandomWindow(RECORDS);
        try (Dataset remote = open(temp.resolve("cache-interleave"), limit)) {
            IllegalArgumentException many = assertThrows(IllegalArgumentException.class,
                () -> Loader.open(remote, quasi.quasiRandomInterleave(8).build()));
            assertTrue(many.getMessage().contains("shuffles 8 windows together")
                && many.getMessage().contains("--interleave 2"), many.getMessage());
            try (Loader loader = Loader.open(remote, quasi.quasiRandomInterleave(2).build())) {
                assertEquals(2, loader.options().sampling().quasiRandomInterleave());
            }
        }
    }

    @Test
    void aMissingManifestNamesBucketAndKey() {
        var missing = assertThrows(io.pinshard.format.ShardFormatException.class,
            () -> S3ShardSource.open(new S3Location("streamed", "nothing/here"), S3TestSettings.of(server).build(),
                temp.resolve("cache-none"), Long.MAX_VALUE));
        assertTrue(missing.getMessage().contains("s3://streamed/nothing/here/manifest.json"), missing.getMessage());
    }

    /** Every sample id the loader hands out over {@code epochs}; with {@code watch}, the most bytes seen under it. */
    static List<Long> sampleIds(Dataset dataset, LoaderOptions options, int epochs, Path watch, long[] maxCached)
        throws Exception {
        List<Long> ids = new ArrayList<>();
        try (dataset; Loader loader = Loader.open(dataset, options)) {
            for (int e = 0; e < epochs; e++) {
                try (Epoch epoch = loader.epoch(e)) {
                    for (Batch batch : epoch) {
                        try (batch) {
                            for (int i = 0; i < batch.size(); i++) {
                                ids.add(batch.sampleId(i));
                            }
                        }
                        if (watch != null) {
                            maxCached[0] = Math.max(maxCached[0], S3TestData.bytesUnder(watch));
                        }
                    }
                }
            }
        }
        return ids;
    }
}
