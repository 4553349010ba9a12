package io.pinshard.loader.sample;

/**
 * The plain distributed split's sizes: how many samples and batches each of {@code w} ranks gets of an epoch of
 * {@code n} records. Rank {@code r} takes the block of {@code P} positions of the epoch order from {@code r x P}
 * (wrapping around past the end), of which it visits the first {@code S}. Without {@code dropLast}
 * {@code P = S = ceil(n / w)} and the last batch may be partial; with it {@code P = floor(n / w)} and {@code S} is
 * {@code P} rounded down to whole batches. Shared by {@link EpochPlan} (the plan of a plain epoch) and
 * {@link ElasticSplit} (what a resized epoch's first world visited), so both count the same.
 */
final class PlainSplit {
    private PlainSplit() {
    }

    /** Samples per rank, before rounding to batches: {@code P}; {@code where} prefixes errors. */
    static long perRankBlock(long records, int worldSize, boolean dropLast, String where) {
        if (worldSize > records && dropLast) {
            throw new IllegalArgumentException(where + "drop_last with " + worldSize + " ranks leaves nothing of "
                + records + " records");
        }
        return dropLast ? records / worldSize : (records + worldSize - 1) / worldSize;
    }

    /** Samples each rank visits: {@code S}. */
    static long samplesPerRank(long perRank, int batchSize, boolean dropLast) {
        return dropLast ? perRank - perRank % batchSize : perRank;
    }

    /** Batches each rank gets; {@code where} prefixes errors. */
    static long batches(long perRank, int batchSize, boolean dropLast, String where) {
        long batches = dropLast ? perRank / batchSize : (perRank + batchSize - 1) / batchSize;
        if (batches == 0) {
            throw new IllegalArgumentException(where + "drop_last leaves no full batch of " + batchSize + " from "
                + perRank + " samples per rank");
        }
        return batches;
    }
}
