package io.pinshard.loader.sample;

import io.pinshard.loader.options.SampleOrder;
import io.pinshard.loader.options.SamplingOptions;

/**
 * The sampler: which record sits at each position of each batch of an epoch, for one rank.
 *
 * <p>The epoch order is a function of (seed, epoch, order, dataset layout) only, evaluated per position: no
 * array of the epoch's records is kept. {@code random} is a keyed bijection of {@code [0, n)} ({@link Feistel},
 * keyed by SplitMix64 of seed and epoch); {@code quasi-random} a permuted order of shard-local windows with the
 * records of each group of windows permuted together ({@link WindowOrder}, O(windows) ints); {@code sequential} the identity. An
 * epoch is prepared into one of two buffers (a key, and for quasi-random the window order) made once per loader:
 * two let the workers prepare and fill the next epoch while the consumer still takes the last batches of the
 * current one (see {@code Loader}); the caller says which buffer holds which epoch. Ranks take contiguous,
 * disjoint blocks of that order ({@code rank x perRank ...}), which keeps quasi-random windows local to one
 * rank; the split is arithmetic on positions.
 *
 * <p>Equal batch counts on every rank: without {@code dropLast} every rank gets
 * {@code ceil(n / world)} samples, the ranks past the end wrapping around to the start of the epoch
 * order (at most {@code world - 1} records repeated, as PyTorch's DistributedSampler pads), and the
 * last batch may be partial (the same size on every rank). With {@code dropLast} every rank gets
 * {@code floor(n / world)} samples and only full batches; the remainder is not visited that epoch.
 *
 * <p>An epoch resumed on another world size ({@link #prepare(int, int, ElasticSplit)}) keeps this epoch
 * order and gives each rank its {@link ElasticSplit} block of what is left instead. The split goes with the
 * buffer holding that epoch: the next {@link #prepare(int, int)} of the buffer returns to the plain split,
 * and the other buffer (the next epoch, filled ahead) is a plain one meanwhile. The resumed epoch's batch
 * shapes are the split's ({@code LoaderRun} keeps it for them); this class answers the plain ones.
 */
public final class EpochPlan {
    private final int records;
    private final int batchSize;
    private final int rank;
    private final SampleOrder order;
    private final long seed;
    /** Per buffer: the key of its epoch's random order. */
    private final long[] randomKey = new long[2];
    private final WindowOrder windows;
    private final long samplesPerRank;
    private final long batches;
    private final long perRankBlock;
    private final int[] preparedEpoch = {-1, -1};
    private final ElasticSplit[] splits = new ElasticSplit[2];

    public EpochPlan(long records, long[] shardFirstRecord, SamplingOptions options) {
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
        this.order = options.order();
        this.seed = options.seed();
        int worldSize = options.worldSize();
        long perRank = PlainSplit.perRankBlock(records, worldSize, options.dropLast(), "");
        this.perRankBlock = perRank;
        this.samplesPerRank = PlainSplit.samplesPerRank(perRank, batchSize, options.dropLast());
        this.batches = PlainSplit.batches(perRank, batchSize, options.dropLast(), "");
        this.windows = order == SampleOrder.QUASI_RANDOM
            ? new WindowOrder(this.records, shardFirstRecord, options.quasiRandomWindow(),
                QuasiRandomInterleave.of(options)) : null;
    }

    /**
     * Prepares buffer {@code buffer} (0 or 1) for the order of {@code epoch}, with this rank's plain split;
     * allocation-free, O(1) but for quasi-random (O(windows)). One thread at a time, and no thread may read
     * that buffer meanwhile (the caller publishes it).
     */
    public void prepare(int buffer, int epoch) {
        splits[buffer] = null;
        if (epoch == preparedEpoch[buffer]) {
            return;
        }
        switch (order) {
            case SEQUENTIAL -> { }
            case RANDOM -> randomKey[buffer] = SplitMix.mix(seed, epoch, 0x5EED);
            case QUASI_RANDOM -> windows.prepare(buffer, SplitMix.mix(seed, epoch, 0xA11), SplitMix.mix(seed, epoch));
            default -> throw new IllegalStateException("unreachable");
        }
        preparedEpoch[buffer] = epoch;
    }

    /**
     * Prepares buffer {@code buffer} for the order of {@code epoch} and gives this rank its block of the epoch's
     * rest as {@code elastic} splits it, until the buffer is prepared again.
     */
    public void prepare(int buffer, int epoch, ElasticSplit elastic) {
        prepare(buffer, epoch);
        splits[buffer] = elastic;
    }

    /** The record at epoch-order position {@code position} ({@code 0 .. records - 1}) of the epoch in {@code buffer}. */
    private int orderAt(int buffer, int position) {
        return switch (order) {
            case SEQUENTIAL -> position;
            case RANDOM -> Feistel.permute(position, records, randomKey[buffer]);
            case QUASI_RANDOM -> windows.recordAt(buffer, position);
        };
    }

    /**
     * Global record number at place {@code position = batch x batchSize + i} of the epoch in {@code buffer}
     * (batches counted from the epoch's first, also when resumed), or -1 where batch {@code batch} holds fewer
     * than {@code i + 1} samples.
     */
    public int recordAt(int buffer, long position) {
        ElasticSplit elastic = splits[buffer];
        if (elastic != null) {
            int at = elastic.positionAt(position);
            return at < 0 ? -1 : orderAt(buffer, at);
        }
        if (position >= samplesPerRank) {
            return -1;
        }
        long global = rank * perRankBlock + position;
        return orderAt(buffer, (int) (global % records));
    }

    /** Quasi-random windows shuffled together (0 for the other orders). */
    public int interleave() {
        return windows == null ? 0 : windows.interleave();
    }

    /** Quasi-random windows (0 for the other orders): the plan's memory is two ints per window per buffer. */
    public int windows() {
        return windows == null ? 0 : windows.windows();
    }

    /** Samples per rank of a plain epoch. */
    public long samplesPerRank() {
        return samplesPerRank;
    }

    /** Batches per rank of a plain epoch. */
    public long batchesPerEpoch() {
        return batches;
    }

    public int batchSize() {
        return batchSize;
    }

    /** Samples in batch {@code batch} of a plain epoch: the batch size except maybe for the last one. */
    public int samplesIn(long batch) {
        long start = batch * batchSize;
        return (int) Math.min(batchSize, samplesPerRank - start);
    }

    public int records() {
        return records;
    }
}
