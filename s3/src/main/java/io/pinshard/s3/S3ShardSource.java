package io.pinshard.s3;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.format.ManifestRules;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.reader.Problem;
import io.pinshard.reader.ShardSource;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * A dataset in S3-compatible storage ({@code s3://bucket/prefix}), its shards made local through the node's
 * {@link ShardCache}. The manifest is read from the store at open (so a new dataset version under the same
 * prefix is seen); each shard is fetched whole by {@link ObjectDownload} (resumed with a range request pinned to the
 * object's ETag when the body breaks off, retried with backoff until {@link S3Settings#maxAttempts()} attempts or
 * {@link S3Settings#callTimeout()} in all) and verified before it is renamed into the cache. Errors name bucket, key and cause. A shard that failed is refused again at once for
 * {@link #FAILURE_MEMORY} (a loader skipping its records does not download it once per record).
 *
 * <p>Credentials stay in the client: nothing here logs or writes them.
 */
public final class S3ShardSource implements ShardSource {
    /** How long a failed shard is refused without a new download. */
    public static final Duration FAILURE_MEMORY = Duration.ofSeconds(30);

    private final S3Location location;
    private final S3Settings settings;
    private final S3Client s3;
    private final ObjectDownload downloader;
    private final ShardCache cache;
    private final DatasetManifest manifest;
    /** Each shard's header number, worked out once ({@link ManifestRules#expectedShardNumbers} is a pass over all). */
    private final int[] expectedNumbers;
    private final long limitBytes;
    private final boolean[] held;
    private final ShardFormatException[] failed;
    private final long[] failedAt;
    private final AtomicLong fetched = new AtomicLong();
    private final AtomicLong downloads = new AtomicLong();
    private final AtomicIntegerArray downloadsPerShard;
    /** Per shard: how many copies a read found corrupt and dropped ({@link #discard}). */
    private final int[] discards;
    private boolean closed;

    private S3ShardSource(S3Location location, S3Settings settings, S3Client s3, ShardCache cache,
                          DatasetManifest manifest, long limitBytes) {
        this.location = location;
        this.settings = settings;
        this.s3 = s3;
        this.downloader = new ObjectDownload(s3, settings.maxAttempts(), settings.callTimeout());
        this.cache = cache;
        this.manifest = manifest;
        this.expectedNumbers = ManifestRules.expectedShardNumbers(manifest.shards());
        this.limitBytes = limitBytes;
        int shards = manifest.shards().size();
        this.held = new boolean[shards];
        this.failed = new ShardFormatException[shards];
        this.failedAt = new long[shards];
        this.downloadsPerShard = new AtomicIntegerArray(shards);
        this.discards = new int[shards];
    }

    /**
     * Opens {@code s3://bucket/prefix}: reads and checks its manifest.
     *
     * @param cacheRoot  the cache directory of this dataset, or null for {@link #cacheDirectory cacheDirectory(null, ...)}
     * @param limitBytes bytes of shards this process may hold at once ({@link Long#MAX_VALUE}: no limit)
     * @throws ShardFormatException {@link Kind#NOT_A_DATASET} when there is no manifest, naming bucket and key
     */
    public static S3ShardSource open(S3Location location, S3Settings settings, Path cacheRoot, long limitBytes) {
        if (limitBytes <= 0) {
            throw new IllegalArgumentException("cache limit must be positive: " + limitBytes);
        }
        S3Client s3 = S3Clients.create(settings);
        ShardCache cache = null;
        try {
            DatasetManifest manifest = readManifest(s3, location);
            cache = ShardCache.open(cacheRoot != null ? cacheRoot : cacheDirectory(null, location, settings));
            cache.evictUnlisted(manifest); // an earlier version's shards would otherwise stay on the disk for good
            return new S3ShardSource(location, settings, s3, cache, manifest, limitBytes);
        } catch (RuntimeException | Error e) {
            if (cache != null) {
                cache.close();
            }
            s3.close();
            throw e;
        }
    }

    /**
     * {@code BASE/<bucket>/<hash>}, BASE {@code ~/.cache/pinshard/s3} when null: the hash (16 hex digits of SHA-256)
     * covers the endpoint and the prefix, so two stores with one bucket name, or two datasets in one bucket, never
     * share a directory, while every process on the node reading this dataset finds the same one.
     */
    public static Path cacheDirectory(Path base, S3Location location, S3Settings settings) {
        String identity = settings.endpoint().map(Object::toString).orElse("aws") + "|" + location.prefix();
        Path root = base != null ? base : Path.of(System.getProperty("user.home"), ".cache", "pinshard", "s3");
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(identity.getBytes(StandardCharsets.UTF_8));
            return root.resolve(location.bucket()).resolve(HexFormat.of().formatHex(hash, 0, 8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static DatasetManifest readManifest(S3Client s3, S3Location location) {
        String key = location.key(DatasetManifest.FILE_NAME);
        byte[] bytes;
        try {
            bytes = s3.getObjectAsBytes(g -> g.bucket(location.bucket()).key(key)).asByteArray();
        } catch (NoSuchKeyException | NoSuchBucketException e) {
            throw new ShardFormatException(Kind.NOT_A_DATASET, location.toString(), null, -1, "no "
                + DatasetManifest.FILE_NAME + " at " + location.uri(DatasetManifest.FILE_NAME) + ": not a pinshard dataset (or its upload "
                + "did not finish): " + e.awsErrorDetails().errorCode(), e);
        } catch (SdkException e) {
            throw new ShardFormatException(Kind.IO_ERROR, location.toString(), null, -1, "cannot read "
                + location.uri(DatasetManifest.FILE_NAME) + ": " + e.getMessage(), e);
        }
        return Json.parseManifest(bytes, location.toString());
    }

    @Override
    public String location() {
        return location.toString();
    }

    @Override
    public Path directory() {
        return cache.root();
    }

    @Override
    public DatasetManifest manifest() {
        return manifest;
    }

    @Override
    public boolean local() {
        return false;
    }

    @Override
    public long limitBytes() {
        return limitBytes;
    }

    @Override
    public int fetchConcurrency() {
        return settings.concurrentFetches();
    }

    @Override
    public long bytesFetched() {
        return fetched.get();
    }

    /** Downloads this source started (retries and resumes of one shard count once). */
    public long downloads() {
        return downloads.get();
    }

    /** Downloads of shard {@code index} this source started. */
    public int downloads(int index) {
        return downloadsPerShard.get(index);
    }

    public ShardCache cache() {
        return cache;
    }

    @Override
    public Path acquire(int index) {
        DatasetManifest.ShardEntry entry = manifest.shards().get(index);
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("source " + location + " is closed");
            }
            ShardFormatException failure = failed[index];
            if (failure != null && System.nanoTime() - failedAt[index] < FAILURE_MEMORY.toNanos()) {
                throw failure;
            }
            if (held[index]) {
                return cache.shardFile(entry);
            }
        }
        String key = location.key(entry.file());
        try {
            Path file = cache.hold(location.toString(), location.uri(entry.file()), manifest, index,
                expectedNumbers[index], part -> download(index, entry, key, part));
            synchronized (this) {
                if (held[index] || closed) {
                    cache.release(entry, false); // another thread of this source got there first
                } else {
                    held[index] = true;
                }
                failed[index] = null;
            }
            return file;
        } catch (ShardFormatException e) {
            if (!Thread.currentThread().isInterrupted()) { // a loader closing under its fetch is not the shard's fault
                synchronized (this) {
                    failed[index] = e;
                    failedAt[index] = System.nanoTime();
                }
            }
            throw e;
        }
    }

    @Override
    public void release(int index) {
        synchronized (this) {
            if (!held[index]) {
                return;
            }
            held[index] = false;
        }
        cache.release(manifest.shards().get(index), true);
    }

    /**
     * Drops the cached copy of held shard {@code index} that a read found corrupt ({@link ShardCache#discard}) and
     * lets go of it; true the first time for this shard (the next {@link #acquire} downloads and checks a new
     * copy), false after that (the copy fetched again is bad too: the caller fails).
     */
    @Override
    public boolean discard(int index) {
        boolean wasHeld;
        int count;
        synchronized (this) {
            wasHeld = held[index];
            held[index] = false;
            count = wasHeld ? ++discards[index] : discards[index];
        }
        if (wasHeld) {
            cache.discard(manifest.shards().get(index));
        }
        return count <= 1;
    }

    @Override
    public String origin(int index) {
        return location.uri(manifest.shards().get(index).file());
    }

    /** Writes object {@code key} into {@code part} ({@link ObjectDownload}); failures name the shard and object. */
    private ObjectDownload.Body download(int index, DatasetManifest.ShardEntry entry, String key, Path part) {
        downloads.incrementAndGet();
        downloadsPerShard.incrementAndGet(index);
        try {
            return downloader.to(part, location.bucket(), key, entry.bytes(), location.uri(entry.file()),
                ObjectDownload.ResponseCheck.NONE, fetched::addAndGet);
        } catch (ObjectDownload.DownloadException e) {
            Kind kind = e.failure() == ObjectDownload.Failure.UNAVAILABLE
                || e.failure() == ObjectDownload.Failure.LOCAL_WRITE ? Kind.IO_ERROR : Kind.MANIFEST_MISMATCH;
            throw new ShardFormatException(kind, location.toString(), entry.file(), -1, e.getMessage(), e);
        }
    }

    /**
     * Checks every shard as {@code pinshard verify} checks a directory's: each is fetched through the cache (which
     * checks length, checksums and structure before keeping it) and, with {@code decode}, every payload is decoded
     * as well. A shard that cannot be had is one problem naming its object. Under a cache limit each shard is let
     * go once checked.
     */
    public List<Problem> verify(boolean decode) {
        List<Problem> problems = new ArrayList<>();
        for (int i = 0; i < manifest.shards().size(); i++) {
            try {
                problems.addAll(verifyShard(i, decode));
            } finally {
                if (limitBytes != Long.MAX_VALUE) {
                    release(i);
                }
            }
        }
        return problems;
    }

    /**
     * One shard for {@link #verify}: a copy downloaded now was checked on its way in (and is decoded with {@code
     * decode}); a cached copy gets every check again, and one that fails them is dropped and fetched again, once.
     */
    private List<Problem> verifyShard(int index, boolean decode) {
        String name = manifest.shards().get(index).file();
        for (boolean again = false; ; again = true) {
            int downloadsBefore = downloadsPerShard.get(index);
            Path file;
            try {
                file = acquire(index);
            } catch (ShardFormatException e) {
                return List.of(new Problem(e.kind(), name, e.record(), e.detail()));
            }
            boolean fresh = downloadsPerShard.get(index) != downloadsBefore;
            List<Problem> found = fresh && !decode ? List.of() : new DatasetVerifier(decode, false)
                .verifyShardFile(file, location(), manifest, index, expectedNumbers[index]);
            if (found.isEmpty() || fresh || again || !discard(index)) {
                return found;
            }
            LoggerFactory.getLogger(S3ShardSource.class).warn("{}: the cached copy {} failed its checks ({}); "
                + "evicted, fetching it again", origin(index), file, Problem.summary(found));
        }
    }

    /** Lets go of every held shard (files stay for the next run), closes the client. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            for (int i = 0; i < held.length; i++) {
                boolean wasHeld;
                synchronized (this) {
                    wasHeld = held[i];
                    held[i] = false;
                }
                if (wasHeld) {
                    cache.release(manifest.shards().get(i), false);
                }
            }
        } finally {
            try {
                cache.close();
            } finally {
                s3.close();
            }
        }
    }

    @Override
    public String toString() {
        return "S3ShardSource[" + location + ", cache " + cache.root() + ", limit " + limitBytes + "]";
    }
}
