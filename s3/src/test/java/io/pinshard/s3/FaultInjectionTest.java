package io.pinshard.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.ShardFormatException.Kind;
import io.pinshard.format.ShardFormatException;
import io.pinshard.loader.Epoch;
import io.pinshard.loader.Loader;
import io.pinshard.loader.LoaderException;
import io.pinshard.loader.options.ErrorPolicy;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.SampleOrder;
import io.pinshard.loader.ring.Batch;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.testkit.FaultProxy;
import io.pinshard.testkit.FaultProxy.Fault;
import io.pinshard.testkit.S3ServerExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.jclouds.blobstore.BlobStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Faults between a real S3 server on loopback and the shard cache, through {@link FaultProxy}: each case checks the
 * outcome (a verified shard after retries, or a clear error naming bucket, key and cause within the time bound),
 * that nothing corrupt or partial is left in the cache, and for the loader which shard failed under each error
 * policy. The table of cases is printed at the end and written to {@code target/fault-table.md}.
 */
@org.junit.jupiter.api.Tag("process")
class FaultInjectionTest {
    private static final String BUCKET = "faults";
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(8);
    private static final List<String> TABLE = new ArrayList<>();
    private static final AtomicInteger CACHES = new AtomicInteger();

    @RegisterExtension
    static final S3ServerExtension server = new S3ServerExtension();
    private static FaultProxy proxy;
    private static S3Client s3;
    private static Path local;
    private static S3Location location;
    private static DatasetManifest manifest;

    @TempDir
    static Path temp;

    @BeforeAll
    static void start() throws Exception {
        proxy = new FaultProxy(server.endpoint());
        s3 = S3Clients.create(S3TestSettings.of(server).build());
        local = S3TestData.write(temp.resolve("local"), 120, 64 << 10);
        location = S3TestData.upload(s3, local, BUCKET, "set");
        try (Dataset here = Dataset.open(local)) {
            manifest = here.manifest();
        }
    }

    @AfterAll
    static void stop() throws Exception {
        String table = "| fault | injected | outcome |\n|---|---:|---|\n" + String.join("\n", TABLE) + "\n";
        System.out.println("fault table:\n" + table);
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "fault-table.md"), table);
        s3.close();
        proxy.close();
    }

    @AfterEach
    void clearFaults() {
        proxy.clear();
    }

    private static S3Settings settings() {
        return S3TestSettings.of(server).endpoint(proxy.endpoint()).maxAttempts(4).attemptTimeout(Duration.ofMillis(1_500))
            .callTimeout(CALL_TIMEOUT).build();
    }

    private static S3ShardSource source(Path cache) {
        return S3ShardSource.open(location, settings(), cache, Long.MAX_VALUE);
    }

    private static Path newCache() {
        return temp.resolve("cache-" + CACHES.incrementAndGet());
    }

    private static String shardKey(int shard) {
        return location.key(manifest.shards().get(shard).file());
    }

    /** Fetches shard 1 with {@code fault} injected {@code times}; expects it cached and verified. */
    private static void recovers(Fault fault, int times, String outcome) throws IOException {
        Path cache = newCache();
        int before = proxy.applied(fault);
        proxy.inject(shardKey(1), fault, times);
        long started = System.nanoTime();
        try (S3ShardSource source = source(cache)) {
            Path file = source.acquire(1);
            assertEquals(times, proxy.applied(fault) - before, fault + " injected");
            assertEquals(List.of(), new DatasetVerifier(true, false).verifyShardFile(file, "cache", manifest, 1));
            assertArrayEquals(Files.readAllBytes(local.resolve(manifest.shards().get(1).file())), Files.readAllBytes(file));
            assertEquals(1, source.downloads());
        }
        assertNoParts(cache);
        TABLE.add("| " + fault + " | " + times + " | " + outcome + " in " + millis(started) + " ms, shard verified |");
    }

    @Test
    void connectionResetsMidBodyAreResumedWithARangeRequest() throws IOException {
        recovers(Fault.RESET_MID_BODY, 2, "resumed from the bytes received (Range + If-Match)");
    }

    @Test
    void truncatedBodiesAreResumed() throws IOException {
        recovers(Fault.TRUNCATED_BODY, 2, "resumed from the bytes received");
    }

    @Test
    void status503WithRetryAfterIsRetried() throws IOException {
        recovers(Fault.STATUS_503_RETRY_AFTER, 2, "retried with backoff");
    }

    @Test
    void status500IsRetried() throws IOException {
        recovers(Fault.STATUS_500, 2, "retried with backoff");
    }

    @Test
    void aResponseSlowerThanTheAttemptTimeoutIsRetried() throws IOException {
        recovers(Fault.SLOW_RESPONSE, 1, "attempt timed out, retried");
    }

    @Test
    void aServerThatAlwaysFailsEndsInAClearErrorWithinTheTimeBound() throws IOException {
        Path cache = newCache();
        proxy.inject(shardKey(2), Fault.STATUS_500, 1_000);
        int before = proxy.applied(Fault.STATUS_500);
        long started = System.nanoTime();
        try (S3ShardSource source = source(cache)) {
            ShardFormatException e = assertThrows(ShardFormatException.class, () -> source.acquire(2));
            long took = millis(started);
            assertTrue(e.getMessage().contains("s3://" + BUCKET + "/" + shardKey(2)), e.getMessage());
            assertTrue(e.getMessage().contains("HTTP 500"), e.getMessage());
            assertTrue(took < CALL_TIMEOUT.toMillis() + 3_000, "gave up after " + took + " ms");
            assertNotCached(cache, 2);
            // refused at once while remembered: a loader skipping its records does not download it per record
            long again = System.nanoTime();
            assertThrows(ShardFormatException.class, () -> source.acquire(2));
            assertTrue(millis(again) < 500);
            TABLE.add("| STATUS_500 (every attempt) | " + (proxy.applied(Fault.STATUS_500) - before) + " | error after "
                + took + " ms: " + e.getMessage().replace('|', '/') + "; nothing cached |");
        }
    }

    @Test
    void truncatedOnEveryAttemptEndsInAClearError() throws IOException {
        Path cache = newCache();
        proxy.inject(shardKey(3), Fault.TRUNCATED_BODY, 1_000);
        int before = proxy.applied(Fault.TRUNCATED_BODY);
        long started = System.nanoTime();
        try (S3ShardSource source = source(cache)) {
            ShardFormatException e = assertThrows(ShardFormatException.class, () -> source.acquire(3));
            assertTrue(e.getMessage().contains(shardKey(3)) && e.getMessage().contains("4 attempt"), e.getMessage());
            assertNotCached(cache, 3);
            TABLE.add("| TRUNCATED_BODY (every attempt) | " + (proxy.applied(Fault.TRUNCATED_BODY) - before)
                + " | error after " + millis(started) + " ms: " + e.getMessage().replace('|', '/') + "; nothing cached |");
        }
    }

    @Test
    void aBodyTooSlowForTheCallTimeoutIsAbandonedInTime() throws IOException {
        Path cache = newCache();
        proxy.inject(shardKey(4), Fault.TRICKLE, 1_000);
        S3Settings quick = S3TestSettings.of(server).endpoint(proxy.endpoint()).maxAttempts(2)
            .attemptTimeout(Duration.ofSeconds(1)).callTimeout(Duration.ofSeconds(2)).build();
        long started = System.nanoTime();
        try (S3ShardSource source = S3ShardSource.open(location, quick, cache, Long.MAX_VALUE)) {
            ShardFormatException e = assertThrows(ShardFormatException.class, () -> source.acquire(4));
            long took = millis(started);
            assertTrue(took < 6_000, "gave up after " + took + " ms");
            assertTrue(e.getMessage().contains(shardKey(4)), e.getMessage());
            assertNotCached(cache, 4);
            TABLE.add("| TRICKLE (" + FaultProxy.TRICKLE_BYTES_PER_SECOND / 1024 + " KiB/s body, 2 s call timeout) | "
                + proxy.applied(Fault.TRICKLE) + " | error after " + took + " ms: " + e.getMessage().replace('|', '/')
                + "; nothing cached |");
        }
    }

    @Test
    void anObjectReplacedUnderTheSameKeyIsRefusedAndNeverCached() throws Exception {
        BlobStore store = server.blobStore();
        String key = shardKey(0);
        byte[] original = Files.readAllBytes(local.resolve(manifest.shards().get(0).file()));
        byte[] replaced = original.clone();
        replaced[200] ^= 0x40; // same length, one payload byte changed: a different upload
        store.putBlob(BUCKET, store.blobBuilder(key).payload(replaced).build());
        Path cache = newCache();
        try (S3ShardSource source = source(cache)) {
            ShardFormatException e = assertThrows(ShardFormatException.class, () -> source.acquire(0));
            assertEquals(Kind.CHECKSUM_MISMATCH, e.kind());
            assertTrue(e.getMessage().contains("s3://" + BUCKET + "/" + key) && e.getMessage().contains("ETag")
                && e.getMessage().contains("replaced under the same key"), e.getMessage());
            assertNotCached(cache, 0);
            TABLE.add("| object replaced under the same key | 1 | error: " + e.getMessage().replace('|', '/')
                + "; nothing cached |");
        } finally {
            store.putBlob(BUCKET, store.blobBuilder(key).payload(original).build());
        }
    }

    @Test
    void aMissingShardNamesItsObjectAndTheLoaderFollowsItsErrorPolicy() throws Exception {
        BlobStore store = server.blobStore();
        String key = shardKey(5);
        byte[] original = Files.readAllBytes(local.resolve(manifest.shards().get(5).file()));
        store.removeBlob(BUCKET, key);
        LoaderOptions.Builder options = LoaderOptions.builder().batchSize(8).crop(16).workers(2).seed(3)
            .order(SampleOrder.QUASI_RANDOM);
        try {
            try (S3ShardSource source = source(newCache())) {
                ShardFormatException e = assertThrows(ShardFormatException.class, () -> source.acquire(5));
                assertEquals(Kind.MANIFEST_MISMATCH, e.kind());
                assertTrue(e.getMessage().contains("s3://" + BUCKET + "/" + key) && e.getMessage().contains("NoSuchKey"),
                    e.getMessage());
                TABLE.add("| missing shard | 1 | error: " + e.getMessage().replace('|', '/') + " |");
            }
            try (Dataset dataset = Dataset.open(source(newCache()));
                 Loader loader = Loader.open(dataset, options.errorPolicy(ErrorPolicy.FAIL).build());
                 Epoch epoch = loader.epoch(0)) {
                LoaderException failed = assertThrows(LoaderException.class, () -> {
                    for (Batch batch : epoch) {
                        batch.close();
                    }
                });
                String message = failed.getMessage() + " / " + failed.getCause().getMessage();
                assertTrue(message.contains(manifest.shards().get(5).file()) && message.contains(key), message);
                TABLE.add("| missing shard, loader errorPolicy FAIL | 1 | the epoch fails: " + message.replace('|', '/') + " |");
            }
            try (Dataset dataset = Dataset.open(source(newCache()));
                 Loader loader = Loader.open(dataset, options.errorPolicy(ErrorPolicy.SKIP).build())) {
                long images = 0;
                try (Epoch epoch = loader.epoch(0)) {
                    for (Batch batch : epoch) {
                        try (batch) {
                            images += batch.size();
                        }
                    }
                }
                long skipped = loader.stats().skippedRecords();
                assertEquals(120, images);
                assertTrue(skipped >= manifest.shards().get(5).records(), "skipped " + skipped);
                TABLE.add("| missing shard, loader errorPolicy SKIP | 1 | the epoch completes: " + images + " images, "
                    + skipped + " records of the missing shard replaced |");
            }
        } finally {
            store.putBlob(BUCKET, store.blobBuilder(key).payload(original).build());
        }
    }

    private static void assertNotCached(Path cache, int shard) throws IOException {
        assertFalse(Files.exists(cache.resolve("shards").resolve(manifest.shards().get(shard).crc32c())
            .resolve(manifest.shards().get(shard).file())), "a failed shard must not be cached");
        assertNoParts(cache);
    }

    private static void assertNoParts(Path cache) throws IOException {
        try (Stream<Path> parts = Files.list(cache.resolve("tmp"))) {
            assertEquals(List.of(), parts.toList(), "no part file may outlive its download");
        }
    }

    private static long millis(long startedNanos) {
        return (System.nanoTime() - startedNanos) / 1_000_000;
    }
}
