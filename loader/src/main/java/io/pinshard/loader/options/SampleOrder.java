package io.pinshard.loader.options;

/** The order in which an epoch visits the dataset's records. */
public enum SampleOrder {
    /**
     * A full permutation of all records, different for every (seed, epoch): a keyed bijection evaluated per
     * position, so no array of the epoch is kept.
     */
    RANDOM,
    /** Records in dataset order (shard by shard). */
    SEQUENTIAL,
    /**
     * Shard-local windows of consecutive records visited in a random window order, the records of each group of
     * {@link SamplingOptions#quasiRandomInterleave()} windows shuffled together (memory per window, not per record):
     * a dataset larger than RAM streams through the page cache, each batch still mixes that many shards, and each
     * epoch differs. Every record is visited exactly once per epoch; works with rank/world.
     */
    QUASI_RANDOM;

    /** Parses {@code random}, {@code sequential}, {@code quasi-random} (case-insensitive). */
    public static SampleOrder parse(String text) {
        for (SampleOrder order : values()) {
            if (order.label().equalsIgnoreCase(text) || order.name().equalsIgnoreCase(text)) {
                return order;
            }
        }
        throw new IllegalArgumentException("order must be random, sequential or quasi-random: " + text);
    }

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
