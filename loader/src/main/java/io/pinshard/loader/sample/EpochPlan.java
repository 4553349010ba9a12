package io.pinshard.loader.sample;

import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.SampleOrder;

/**
 * The sampler: which record sits at each position of each batch of an epoch, for one rank.
 *
 * <p>The epoch order is a function of (seed, epoch, order, dataset layout) only, filled once per
 * epoch into one of two {@code int[]} buffers made once per loader, so looking a position up is an array
 * read. Two buffers let the workers prepare and fill the next epoch while the consumer still takes the
 * last batches of the current one (see {@code Loader}); the caller says which buffer holds which epoch.
 * Ranks take contiguous, disjoint blocks of that order ({@code rank x perRank ...}), which keeps
 * quasi-random windows local to one rank.
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
    private final int worldSize;
    private final SampleOrder order;
    private final long seed;
    private final int[][] positions;
    private final int[] windowStart;
    private final int[] windowOrder;
    private final long samplesPerRank;
    private final long batches;
    private final long perRankBlock;
    private final SplitMix random = new SplitMix();
    private final int[] preparedEpoch = {-1, -1};
    private final ElasticSplit[] splits = new ElasticSplit[2];

    public EpochPlan(long records, long[] shardFirstRecord, LoaderOptions options) {
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
        this.positions = new int[2][this.records];
        long perRank = PlainSplit.perRankBlock(records, worldSize, options.dropLast(), "");
        this.perRankBlock = perRank;
        this.samplesPerRank = PlainSplit.samplesPerRank(perRank, batchSize, options.dropLast());
        this.batches = PlainSplit.batches(perRank, batchSize, options.dropLast(), "");
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

    /**
     * Fills buffer {@code buffer} (0 or 1) with the order of {@code epoch}, with this rank's plain split;
     * allocation-free. One thread at a time, and no thread may read that buffer meanwhile (the caller
     * publishes it).
     */
    public void prepare(int buffer, int epoch) {
        splits[buffer] = null;
        if (epoch == preparedEpoch[buffer]) {
            return;
        }
        int[] positions = this.positions[buffer];
        for (int i = 0; i < records; i++) {
            positions[i] = i;
        }
        switch (order) {
            case SEQUENTIAL -> { }
            case RANDOM -> shuffle(positions, 0, records, random.seed(SplitMix.mix(seed, epoch, 0x5EED)));
            case QUASI_RANDOM -> prepareQuasiRandom(positions, epoch);
            default -> throw new IllegalStateException("unreachable");
        }
        preparedEpoch[buffer] = epoch;
    }

    /**
     * Fills buffer {@code buffer} with the order of {@code epoch} and gives this rank its block of the epoch's
     * rest as {@code elastic} splits it (bound to that order once, here), until the buffer is prepared again.
     */
    public void prepare(int buffer, int epoch, ElasticSplit elastic) {
        prepare(buffer, epoch);
        elastic.bind(positions[buffer]);
        splits[buffer] = elastic;
    }

    private void prepareQuasiRandom(int[] positions, int epoch) {
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
     * Global record number at place {@code position = batch x batchSize + i} of the epoch in {@code buffer}
     * (batches counted from the epoch's first, also when resumed), or -1 where batch {@code batch} holds fewer
     * than {@code i + 1} samples.
     */
    public int recordAt(int buffer, long position) {
        ElasticSplit elastic = splits[buffer];
        if (elastic != null) {
            return elastic.recordAt(position);
        }
        if (position >= samplesPerRank) {
            return -1;
        }
        long global = rank * perRankBlock + position;
        return positions[buffer][(int) (global % records)];
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
