package io.pinshard.reader;

/**
 * Told by a streamed {@link Dataset} around each mapping a read makes of a shard that is not mapped (a worker that
 * found its shard missing, a fetch ahead): {@link #beforeMap} on the reading thread before the source makes the shard
 * local, {@link #afterMap} once that ended, mapped or not. What the loader's prefetcher keeps the cache limit with:
 * a shard mapped outside its own planning makes room first, so the bytes held never depend on whether its thread
 * ran in between ({@link Dataset#mapListener}).
 *
 * <p>Called with no view pinned by the calling thread and no lock of the dataset held: it may evict other shards.
 */
public interface MapListener {
    /** Shard {@code index} is about to be mapped by this thread. */
    void beforeMap(int index);

    /** The mapping of shard {@code index} announced by {@link #beforeMap} ended, mapped or failed. */
    void afterMap(int index);
}
