package io.pinshard.reader;

import io.pinshard.format.DatasetManifest;
import java.nio.file.Path;

/**
 * Where a dataset's manifest and shard files come from. A local directory ({@link LocalShardSource}) has every shard
 * at hand ({@link #local()}: {@link Dataset} maps them all at open, or each on use within a mapping bound); a remote
 * store such as S3 makes a shard local on demand ({@link #acquire}: downloaded into a verified cache) and lets it go
 * again ({@link #release}), so a dataset larger than the disk can stream through a bounded cache. The loader calls
 * {@code acquire} ahead of its workers, in the order its sampler will read the shards (see docs/streaming.md). What
 * every implementation promises is checked by one suite, {@code ShardSourceContract} (reader's tests), per source.
 *
 * <p>Implementations are thread-safe: the loader's fetch threads and its workers may acquire shards at once.
 */
public interface ShardSource extends AutoCloseable {
    /** How messages name the dataset: its directory, or {@code s3://bucket/prefix}. */
    String location();

    /** The local directory the shard files are (or are cached) in. */
    Path directory();

    /** The dataset's manifest, read and checked ({@code ManifestRules}). */
    DatasetManifest manifest();

    /** True when every listed shard is a local file now (nothing to fetch, nothing to evict). */
    boolean local();

    /** Bytes of shards this process may hold at once; {@link Long#MAX_VALUE} for no limit. */
    long limitBytes();

    /**
     * Makes shard {@code index} a local file that has passed every check and holds it for this process until
     * {@link #release}: it is not evicted meanwhile. Blocks while it downloads. Acquiring a held shard again
     * returns the same file without counting twice.
     *
     * @throws io.pinshard.format.ShardFormatException naming the shard (and, remote, bucket and key) when it cannot
     *                                                 be had or fails its checks; nothing unchecked is ever returned
     */
    Path acquire(int index);

    /** This process no longer needs shard {@code index}: the cache may delete it unless another process holds it. */
    void release(int index);

    /**
     * A read found held shard {@code index}'s file corrupt (a payload CRC, the index, {@code verify}'s checks): the
     * source drops that copy from its cache and lets go of the hold, and says whether the next {@link #acquire}
     * fetches a new one. A remote source fetches each shard again once per source; a second corrupt copy is the
     * store's or this node's fault, and the caller fails naming the object, shard and record. A local directory has
     * no other copy: false, and nothing is deleted.
     */
    default boolean discard(int index) {
        return false;
    }

    /** How {@code discard}'s callers name shard {@code index}'s origin in their errors: its object, or its file. */
    default String origin(int index) {
        return directory().resolve(manifest().shards().get(index).file()).toString();
    }

    /**
     * How many shards the loader's prefetcher fetches at once ({@link #acquire} from that many fetch threads; a
     * worker that finds its shard missing may add one more): a remote store serves requests in parallel, and
     * several in flight hide its latency. 1 unless the source says otherwise; 0 from a source whose shards are all
     * local files ({@link LocalShardSource}): nothing to fetch ahead, so the loader starts no prefetcher.
     */
    default int fetchConcurrency() {
        return 1;
    }

    /** Bytes downloaded so far by this source (0 for a local directory). */
    long bytesFetched();

    /** Lets every held shard go (keeping the files: a later run finds them warm). Idempotent. */
    @Override
    void close();
}
