package io.pinshard.reader.loader;

import java.util.List;

/**
 * The sampler: which record sits at each position of each batch of an epoch, for one rank.
 *
 * <p>The epoch order is a function of (seed, epoch, order, dataset layout) only, filled once per
 * epoch into an {@code int[]} made once per loader, so looking a position up is an array read.
 * Ranks take contiguous, disjoint blocks of that order ({@code rank x perRank ...}), which keeps
 * quasi-random windows local to one rank.
 *
 * <p>Equal batch counts on every rank: without {@code dropLast} every rank gets
 * {@code ceil(n / world)} samples, the ranks past the end wrapping around to the start of the epoch
 * order (at most {@code world - 1} records repeated, as PyTorch's DistributedSampler pads), and the
 * last batch may be partial (the same size on every rank). With {@code dropLast} every rank gets
 * {@code floor(n / world)} samples and only full batches; the remainder is not visited that epoch.
 *
 * <p>An epoch resumed on another world size ({@link #prepare(int, ElasticSplit)}) keeps this epoch order
 * and gives each rank its {@link ElasticSplit} block of what is left instead; the next {@link #prepare(int)}
 * returns to the plain split.
 */
final class EpochPlan {
    private final int records;
    private final int batchSize;
    private final int rank;
    private final int worldSize;
    private final SampleOrder order;
    private final long seed;
    private final int[] positions;
    private final int[] windowStart;
    private final int[] windowOrder;
    private final long samplesPerRank;
    private final long batches;
    private final long perRankBlock;
    private final SplitMix random = new SplitMix();
    private int preparedEpoch = -1;
    private ElasticSplit split;

    EpochPlan(long records, long[] shardFirstRecord, LoaderOptions options) {
        if (records <= 0) {
            throw new IllegalArgumentException("the dataset holds no records");
        }
        if (records > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("the loader handles up to " + (Integer.MAX_VALUE - 8)
                + " records per dataset, this one holds " + records);
        }
        this.records = (int) records;
        this.batchSize = options.batchSize();
        this.rank = options.rank();
        this.worldSize = options.worldSize();
        this.order = options.order();
        this.seed = options.seed();
        this.positions = new int[this.records];
        long perRank = perRankBlock(records, worldSize, options.dropLast(), "");
        this.perRankBlock = perRank;
        this.samplesPerRank = samplesPerRank(perRank, batchSize, options.dropLast());
        this.batches = batches(perRank, batchSize, options.dropLast(), "");
        if (order == SampleOrder.QUASI_RANDOM) {
            int window = options.quasiRandomWindow();
            int count = 0;
            for (int s = 0; s + 1 < shardFirstRecord.length; s++) {
                count += (int) ((shardFirstRecord[s + 1] - shardFirstRecord[s] + window - 1) / window);
            }
            windowStart = new int[count + 1];
            windowOrder = new int[count];
            int w = 0;
            for (int s = 0; s + 1 < shardFirstRecord.length; s++) {
                for (long r = shardFirstRecord[s]; r < shardFirstRecord[s + 1]; r += window) {
                    windowStart[w++] = (int) r;
                }
            }
            windowStart[count] = this.records;
        } else {
            windowStart = null;
            windowOrder = null;
        }
    }

    /** Samples per rank, before rounding to batches: {@code P} of the class comment; {@code where} prefixes errors. */
    static long perRankBlock(long records, int worldSize, boolean dropLast, String where) {
        if (worldSize > records && dropLast) {
            throw new IllegalArgumentException(where + "drop_last with " + worldSize + " ranks leaves nothing of "
                + records + " records");
        }
        return dropLast ? records / worldSize : (records + worldSize - 1) / worldSize;
    }

    /** Samples each rank visits. */
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

    /** Fills the epoch order with this rank's plain split; allocation-free. */
    void prepare(int epoch) {
        split = null;
        if (epoch == preparedEpoch) {
            return;
        }
        for (int i = 0; i < records; i++) {
            positions[i] = i;
        }
        switch (order) {
            case SEQUENTIAL -> { }
            case RANDOM -> shuffle(positions, 0, records, random.seed(SplitMix.mix(seed, epoch, 0x5EED)));
            case QUASI_RANDOM -> prepareQuasiRandom(epoch);
            default -> throw new IllegalStateException("unreachable");
        }
        preparedEpoch = epoch;
    }

    /** Fills the epoch order and gives this rank its block of the epoch's rest as {@code elastic} splits it. */
    void prepare(int epoch, ElasticSplit elastic) {
        prepare(epoch);
        elastic.bind(positions);
        split = elastic;
    }

    private void prepareQuasiRandom(int epoch) {
        int windows = windowOrder.length;
        for (int i = 0; i < windows; i++) {
            windowOrder[i] = i;
        }
        shuffle(windowOrder, 0, windows, random.seed(SplitMix.mix(seed, epoch, 0xA11)));
        int at = 0;
        for (int i = 0; i < windows; i++) {
            int w = windowOrder[i];
            int start = at;
            for (int r = windowStart[w]; r < windowStart[w + 1]; r++) {
                positions[at++] = r;
            }
            shuffle(positions, start, at - start, random.seed(SplitMix.mix(seed, epoch, w + 1L)));
        }
    }

    private static void shuffle(int[] values, int from, int length, SplitMix random) {
        for (int i = length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = values[from + i];
            values[from + i] = values[from + j];
            values[from + j] = t;
        }
    }

    /**
     * Global record number at place {@code position = batch x batchSize + i} of the prepared epoch (batches
     * counted from the epoch's first, also when resumed), or -1 where batch {@code batch} holds fewer than
     * {@code i + 1} samples.
     */
    int recordAt(long position) {
        ElasticSplit elastic = split;
        if (elastic != null) {
            return elastic.recordAt(position);
        }
        if (position >= samplesPerRank) {
            return -1;
        }
        long global = rank * perRankBlock + position;
        return positions[(int) (global % records)];
    }

    /** Samples per rank of a plain epoch. */
    long samplesPerRank() {
        return samplesPerRank;
    }

    /** Batches per rank of a plain epoch. */
    long batchesPerEpoch() {
        return batches;
    }

    /** Batches of the prepared epoch on this rank, from its first (a resized epoch: earlier segments included). */
    long batches() {
        ElasticSplit elastic = split;
        return elastic != null ? elastic.offsetBatches() + elastic.batches() : batches;
    }

    int batchSize() {
        return batchSize;
    }

    /** Samples in batch {@code batch} of the prepared epoch: the batch size except maybe for the last ones. */
    int samplesIn(long batch) {
        ElasticSplit elastic = split;
        if (elastic != null) {
            return elastic.samplesIn(batch);
        }
        long start = batch * batchSize;
        return (int) Math.min(batchSize, samplesPerRank - start);
    }

    /** The prepared epoch's earlier world sizes, for its {@link LoaderState}: empty unless it was resized. */
    List<LoaderState.Segment> segments() {
        ElasticSplit elastic = split;
        return elastic != null ? elastic.segments() : List.of();
    }

    int records() {
        return records;
    }
}
