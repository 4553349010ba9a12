package io.pinshard.loader.sample;

import io.pinshard.loader.options.LoaderState;
import io.pinshard.loader.options.SamplingOptions;
import java.util.ArrayList;
import java.util.List;

/**
 * Elastic resume: which positions of an epoch's order the rest of a resized epoch gives one rank of the new
 * world. A function of the dataset's size, batch size, {@code dropLast} and the epoch's history of world sizes
 * only (not of the order itself), computed once per resume by arithmetic on positions (O(ranks) per segment,
 * nothing per record: what is left is held as {@link PositionRuns}); the per-batch look-ups are a binary search
 * over this rank's few runs.
 *
 * <p><b>The epoch's samples.</b> An epoch starts on {@code w} ranks with the split {@link EpochPlan} describes:
 * rank {@code r} visits positions {@code (r x P + j) mod n} of the epoch order for {@code j < S}. The epoch's
 * sample set is the set of positions visited by some rank: all {@code n} without {@code dropLast} (the
 * {@code w x P - n} positions padded by wrap-around count once), and with {@code dropLast} the
 * {@code w x S} positions of the ranks' whole batches (the rest is not visited this epoch, as on a fresh
 * epoch). A position is <i>consumed</i> once some rank handed it out (a padded position already counts when
 * either of its two copies went out); the epoch's <i>unconsumed samples</i> are its sample set minus the
 * consumed positions, each once, in ascending epoch-order position: the <i>remaining order</i>.
 *
 * <p><b>The split over the new world.</b> {@code R} unconsumed samples over {@code w'} ranks: rank {@code r'}
 * takes the contiguous block of the remaining order of {@code floor(R / w')} samples, one more for the first
 * {@code R mod w'} ranks (so quasi-random windows stay on one rank but where a block boundary cuts one, as on a
 * fresh epoch), in {@code k = ceil(R / (w' x batch))} batches on every rank. Batches are filled greedily,
 * keeping one sample for each later batch: batch {@code j} of a block of {@code s} samples starts at
 * {@code min(j x batch, max(s - (k - j), min(j, s)))}. When the last step holds at least one sample per rank
 * this is the usual shape, full batches and a smaller last one; otherwise (about one resume in {@code batch})
 * the shorter ranks' second-last batch is one sample short so that their last is not empty; only when fewer
 * samples are left than ranks (or with batch size 1) do some ranks get an empty last batch
 * ({@code Batch.size()} 0). Nothing is padded or dropped, whatever {@code dropLast}: exactly once is the
 * contract, so a resized epoch may end with smaller batches even with {@code dropLast}.
 *
 * <p><b>Resized again.</b> Each resize within the epoch appends a {@link LoaderState.Segment} (the world size
 * and the batches consumed on it) to the state; the remaining order after segment {@code i} is that of
 * segment {@code i} minus what its ranks consumed, in order. A segment that consumed nothing after a resize
 * is replaced rather than kept, so the list grows only with batches consumed, up to
 * {@link LoaderState#MAX_SEGMENTS}. The first segment is kept even with no batch consumed: its world size
 * fixes the epoch's sample set. The next epoch runs normally on the new world.
 */
public final class ElasticSplit {
    private final List<LoaderState.Segment> segments;
    private final long offsetBatches;
    private final int worldSize;
    private final int batchSize;
    private final long remaining;
    private final long batches;
    private final long startBatch;
    private final PositionRuns block; // this rank's share: positions of the epoch order, ascending
    private final int blockSize;

    private ElasticSplit(List<LoaderState.Segment> segments, int worldSize, int batchSize, long remaining,
                         long batches, long startInSplit, PositionRuns block) {
        this.segments = segments;
        this.offsetBatches = LoaderState.batchesOf(segments);
        this.worldSize = worldSize;
        this.batchSize = batchSize;
        this.remaining = remaining;
        this.batches = batches;
        this.startBatch = offsetBatches + startInSplit;
        this.block = block;
        this.blockSize = block.size();
    }

    /**
     * The split that resumes {@code state} on a loader with {@code options} over {@code records} records, or
     * null when the epoch never changed world size and does not now (then the plain plan applies).
     *
     * @throws IllegalArgumentException when the state does not fit this dataset and these options: a segment
     *                                  or the current segment consumed more batches than it had, or the epoch
     *                                  would change world size more than {@link LoaderState#MAX_SEGMENTS} times
     */
    public static ElasticSplit resume(LoaderState state, long records, SamplingOptions options) {
        List<LoaderState.Segment> history = state.segments();
        long inSegment = state.batchesInSegment();
        if (history.isEmpty() && state.worldSize() == options.worldSize()) {
            return null;
        }
        List<LoaderState.Segment> segments = new ArrayList<>(history);
        long startBatch;
        if (state.worldSize() == options.worldSize()) {
            startBatch = inSegment; // the same split of the same remainder: continue it
        } else if (inSegment == 0 && !history.isEmpty()) {
            startBatch = 0; // nothing consumed since the last resize: that split is replaced, not kept
        } else {
            if (segments.size() == LoaderState.MAX_SEGMENTS) {
                throw new IllegalArgumentException("state " + state + " cannot resume on " + options.worldSize()
                    + " ranks: epoch " + state.epoch() + " already changed world size " + LoaderState.MAX_SEGMENTS
                    + " times, the most a state records; finish the epoch on " + state.worldSize() + " ranks");
            }
            segments.add(new LoaderState.Segment(state.worldSize(), inSegment));
            startBatch = 0;
        }
        return of(records, options.batchSize(), options.dropLast(), List.copyOf(segments), options.worldSize(),
            options.rank(), state).startingAt(startBatch, state);
    }

    /** This split from its batch {@code j} on (0 .. {@link #batches()}). */
    private ElasticSplit startingAt(long j, LoaderState state) {
        if (j > batches) {
            throw new IllegalArgumentException("state " + state + " is past the end of the epoch: " + j
                + " batches consumed on " + worldSize + " ranks, which have " + batches + " batches of the epoch's "
                + remaining + " samples left after its earlier segments");
        }
        return new ElasticSplit(segments, worldSize, batchSize, remaining, batches, j, block);
    }

    /**
     * The split of what {@code segments} (at least the first) left over {@code worldSize} ranks, for
     * {@code rank}, from its first batch; {@code state} only names the state in messages.
     */
    private static ElasticSplit of(long records, int batchSize, boolean dropLast, List<LoaderState.Segment> segments,
                                   int worldSize, int rank, LoaderState state) {
        PositionRuns order = firstRemainder(records, batchSize, dropLast, segments.get(0), state);
        for (int i = 1; i < segments.size(); i++) {
            order = consume(order, segments.get(i), batchSize, state);
        }
        int length = order.size();
        long k = batchesFor(length, worldSize, batchSize);
        PositionRuns block = new PositionRuns();
        order.copyRange(blockStart(length, worldSize, rank), blockStart(length, worldSize, rank + 1), block);
        return new ElasticSplit(segments, worldSize, batchSize, length, k, 0, block);
    }

    /**
     * The remaining order after the epoch's first segment, a plain {@link EpochPlan} split: rank {@code r} visited
     * the places {@code g = r x P + j}, {@code j < S}, at position {@code g mod n}, and consumed those with
     * {@code j < c}. Without {@code dropLast} a position {@code q} below {@code w x P - n} is visited twice (at
     * {@code g = q} and {@code g = q + n}); it is left only when neither copy was consumed. O(ranks).
     */
    private static PositionRuns firstRemainder(long n, int batchSize, boolean dropLast, LoaderState.Segment first,
                                               LoaderState state) {
        int world = first.worldSize();
        String where = "state " + state + ": the epoch started on " + world + " ranks";
        long perRank = PlainSplit.perRankBlock(n, world, dropLast, where + ": ");
        long samples = PlainSplit.samplesPerRank(perRank, batchSize, dropLast);
        long batches = PlainSplit.batches(perRank, batchSize, dropLast, where + ": ");
        if (first.batches() > batches) {
            throw new IllegalArgumentException(where + ", which have " + batches + " batches per rank, but it says "
                + first.batches() + " were consumed there");
        }
        long consumed = Math.min(first.batches() * batchSize, samples);
        PositionRuns firstCopies = new PositionRuns(); // unconsumed places g < n
        if (perRank == 1) {
            // One sample per rank (world >= n; with dropLast n < 2 x world): every visited position has the same
            // status, so a state naming a huge world costs nothing.
            firstCopies.add(0, consumed == 0 ? (dropLast ? world : n) : 0);
            return firstCopies;
        }
        long ranks = world; // world x perRank < n + world here, and world < n
        for (long r = 0; r < ranks && r * perRank < n; r++) {
            long from = r * perRank + consumed;
            firstCopies.add(from, Math.min(r * perRank + samples, n) - from);
        }
        long end = ranks * perRank;
        if (dropLast || end <= n) {
            return firstCopies;
        }
        PositionRuns secondCopies = new PositionRuns(); // positions whose place g >= n, if any, is unconsumed
        for (long r = n / perRank; r < ranks; r++) {
            long from = Math.max(n, r * perRank + consumed);
            secondCopies.add(from - n, Math.min(r * perRank + perRank, end) - from);
        }
        secondCopies.add(end - n, n - (end - n));
        return PositionRuns.intersection(firstCopies, secondCopies);
    }

    /** What the ranks of {@code segment} left of {@code order}. */
    private static PositionRuns consume(PositionRuns order, LoaderState.Segment segment, int batchSize,
                                        LoaderState state) {
        int length = order.size();
        int world = segment.worldSize();
        long k = batchesFor(length, world, batchSize);
        if (segment.batches() > k) {
            throw new IllegalArgumentException("state " + state + ": a segment on " + world + " ranks had " + k
                + " batches of the epoch's " + length + " samples left, but it says " + segment.batches()
                + " were consumed");
        }
        // Blocks have two sizes, base + 1 (the first length mod world ranks) and base: when both lose nothing, or
        // all, no rank needs visiting (a state naming a huge world costs nothing).
        int base = length / world;
        long takenLong = batchStart(segment.batches(), base + 1, k, batchSize);
        long takenShort = batchStart(segment.batches(), base, k, batchSize);
        if (takenLong == 0 && takenShort == 0) {
            return order;
        }
        PositionRuns left = new PositionRuns();
        if (takenLong == base + 1 && takenShort == base) {
            return left;
        }
        for (int r = 0; r < world; r++) { // world <= length here: base is at least 1
            int from = blockStart(length, world, r);
            int size = blockStart(length, world, r + 1) - from;
            order.copyRange(from + (int) (size > base ? takenLong : takenShort), from + size, left);
        }
        return left;
    }

    /** Batches every rank gets when {@code remaining} samples are split over {@code world} ranks. */
    static long batchesFor(long remaining, int world, int batchSize) {
        long step = (long) world * batchSize;
        return (remaining + step - 1) / step;
    }

    /** First index of rank {@code rank}'s block of the remaining order ({@code rank == world}: its length). */
    private static int blockStart(int remaining, int world, int rank) {
        int base = remaining / world;
        return rank * base + Math.min(rank, remaining % world);
    }

    /** Where batch {@code j} of {@code k} starts in a block of {@code size} samples (greedy, see the class). */
    static long batchStart(long j, long size, long k, int batchSize) {
        return Math.min(j * batchSize, Math.max(size - (k - j), Math.min(j, size)));
    }

    /** The epoch's earlier world sizes, oldest first, as the state records them. */
    public List<LoaderState.Segment> segments() {
        return segments;
    }

    /** Batches per rank of the earlier segments: this split's batch {@code j} is the epoch's {@code offset + j}. */
    public long offsetBatches() {
        return offsetBatches;
    }

    /** Batches of this split on every rank (the epoch has {@code offsetBatches() + batches()}). */
    public long batches() {
        return batches;
    }

    /** The epoch's batch (counted over all segments) the resumed rank continues with. */
    public long startBatch() {
        return startBatch;
    }

    /** Unconsumed samples of the epoch this split shares out, over all ranks. */
    long remaining() {
        return remaining;
    }

    int worldSize() {
        return worldSize;
    }

    /** Runs of consecutive positions this rank's block is held as. */
    int runs() {
        return block.runs();
    }

    /**
     * Epoch-order position at place {@code position = batch x batchSize + i}, batches counted from the epoch's
     * first; -1 where batch {@code batch} holds fewer than {@code i + 1} samples.
     */
    int positionAt(long position) {
        long batch = position / batchSize;
        long j = batch - offsetBatches;
        long start = batchStart(j, blockSize, batches, batchSize);
        long at = start + position - batch * batchSize;
        return at < batchStart(j + 1, blockSize, batches, batchSize) ? block.positionAt((int) at) : -1;
    }

    /** Samples in the epoch's batch {@code batch} (counted from its first, over all segments). */
    public int samplesIn(long batch) {
        long j = batch - offsetBatches;
        return (int) (batchStart(j + 1, blockSize, batches, batchSize) - batchStart(j, blockSize, batches,
            batchSize));
    }
}
