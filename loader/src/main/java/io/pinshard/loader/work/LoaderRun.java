package io.pinshard.loader.work;

import io.pinshard.loader.options.LoaderState;
import io.pinshard.loader.ring.RingRun;
import io.pinshard.loader.sample.ElasticSplit;
import io.pinshard.loader.sample.EpochPlan;
import java.util.List;

/**
 * What the loader's persistent workers work on: one stream of sample tickets from a (re)start of the ring
 * through every epoch the consumer then takes back to back. One object per loader, reused.
 *
 * <p>Segment 0 is the epoch started, from its start batch, on the plain plan or, resumed on another world
 * size, on its {@link io.pinshard.loader.sample.ElasticSplit}; segment {@code k} is epoch {@code firstEpoch + k} from its first batch, on
 * the plain plan. Tickets and ring sequences run on across segments, so the workers go from the last
 * ticket of one epoch to the first of the next without a pause, and a segment's order lives in plan buffer
 * {@code k & 1}. The workers may work on segment {@code k} once the consumer is on segment {@code k - 1}
 * ({@link #permits}): one epoch of speculation, which also guarantees that segment {@code k - 2}, whose plan
 * buffer segment {@code k} reuses, has been consumed entirely.
 *
 * <p>Segment 0's batch shapes come from the split kept here, not from the plan's buffer 0, which segment 2
 * reprepares while a worker may still hold one of segment 0's spare tickets (places past the end of a short
 * resized batch, which it skips).
 *
 * <p>{@link #reset} is called by the consumer only while every worker is idle; it writes the plain fields and
 * publishes them with the volatile {@link #generation}, which idle workers watch. The volatile fields
 * ({@code stopping}, {@code adopted}, {@code prepared}, the failure) change while workers run.
 */
public final class LoaderRun implements RingRun {
    static final int NO_FAILURE = Integer.MAX_VALUE;

    private final EpochPlan plan;
    private final long samplesPerEpoch;
    private final long batchesPerEpoch;
    private final int batchSize;
    private volatile long generation;
    private int firstEpoch;
    private long startBatch;
    private ElasticSplit resumed;
    private long firstEpochBatches;
    private long firstTickets;
    private long firstBatches;
    private int lastSegment;
    private long startedNanos;
    private volatile boolean stopping = true;
    private volatile int adopted;
    private volatile int prepared;
    private volatile int failedSegment = NO_FAILURE;
    private volatile Throwable failure;
    private volatile String failedThread;

    public LoaderRun(EpochPlan plan) {
        this.plan = plan;
        this.samplesPerEpoch = plan.samplesPerRank();
        this.batchesPerEpoch = plan.batchesPerEpoch();
        this.batchSize = plan.batchSize();
    }

    /**
     * Starts a new generation at batch {@code start} of {@code epoch} (every worker idle, the ring reset and
     * segment 0's order in plan buffer 0), on the plain plan or, when not null, on {@code elastic} (the split
     * bound to buffer 0): the last write publishes the others. A resized epoch has a ticket for every place of
     * its batches, {@code (batches - start) x batchSize}; those past a short batch's end are skipped.
     */
    public void reset(int epoch, long start, ElasticSplit elastic) {
        firstEpoch = epoch;
        startBatch = start;
        resumed = elastic;
        firstEpochBatches = elastic == null ? batchesPerEpoch : elastic.offsetBatches() + elastic.batches();
        firstTickets = elastic == null ? Math.max(0, samplesPerEpoch - start * batchSize)
            : (firstEpochBatches - start) * batchSize;
        firstBatches = firstEpochBatches - start;
        lastSegment = Integer.MAX_VALUE - epoch; // no epoch number past Integer.MAX_VALUE
        startedNanos = System.nanoTime();
        adopted = 0;
        prepared = 0;
        failure = null;
        failedThread = null;
        failedSegment = NO_FAILURE;
        stopping = false;
        generation = generation + 1;
    }

    long generation() {
        return generation;
    }

    long startedNanos() {
        return startedNanos;
    }

    /** The segment of ticket {@code ticket}. */
    int segmentOf(long ticket) {
        if (ticket < firstTickets) {
            return 0;
        }
        return (int) Math.min(Integer.MAX_VALUE, 1 + (ticket - firstTickets) / samplesPerEpoch);
    }

    long ticketBase(int segment) {
        return segment == 0 ? 0 : firstTickets + (segment - 1) * samplesPerEpoch;
    }

    /** Ring sequence of segment {@code segment}'s first batch. */
    public long sequenceBase(int segment) {
        return segment == 0 ? 0 : firstBatches + (segment - 1) * batchesPerEpoch;
    }

    /** The batch of its epoch that segment {@code segment} starts at. */
    public long firstBatch(int segment) {
        return segment == 0 ? startBatch : 0;
    }

    public int epochOf(int segment) {
        return firstEpoch + segment;
    }

    /** Batches of segment {@code segment}'s epoch, from its first (resized: earlier world sizes' included). */
    public long batches(int segment) {
        return segment == 0 ? firstEpochBatches : batchesPerEpoch;
    }

    /** Samples in batch {@code batch} (counted from the epoch's first) of segment {@code segment}'s epoch. */
    public int samplesIn(int segment, long batch) {
        ElasticSplit elastic = segment == 0 ? resumed : null;
        return elastic != null ? elastic.samplesIn(batch) : plan.samplesIn(batch);
    }

    /** Segment {@code segment}'s epoch's earlier world sizes, for its {@link io.pinshard.loader.options.LoaderState}: empty unless resized. */
    public List<LoaderState.Segment> worldSegments(int segment) {
        ElasticSplit elastic = segment == 0 ? resumed : null;
        return elastic != null ? elastic.segments() : List.of();
    }

    /** Whether the consumer may continue the stream with segment {@code segment} (its epoch number exists). */
    public boolean hasSegment(int segment) {
        return segment <= lastSegment;
    }

    /** Whether the workers may fill segment {@code segment}: the consumer is on the one before, or on it. */
    boolean permits(int segment) {
        return segment <= lastSegment && segment <= (long) adopted + 1;
    }

    /** The consumer moves on to segment {@code segment}, which the workers may already be filling. */
    public void adopt(int segment) {
        adopted = segment;
    }

    /** Highest segment whose order is in its plan buffer. */
    int prepared() {
        return prepared;
    }

    void prepared(int segment) {
        prepared = segment;
    }

    public boolean stopping() {
        return stopping;
    }

    void stop() {
        stopping = true;
    }

    /** Whether a worker holding a ticket of {@code segment} gives it up: the run stopped or failed at or before it. */
    @Override
    public boolean abandons(int segment) {
        return stopping || failedSegment <= segment;
    }

    /**
     * A worker failed in {@code segment}: workers leave that segment and later ones, and the consumer sees the
     * failure when it reaches that segment; earlier segments are completed. The earliest failure is kept.
     */
    synchronized void fail(Throwable cause, int segment) {
        if (failure == null || segment < failedSegment) {
            failedThread = Thread.currentThread().getName();
            failure = cause;
            failedSegment = segment;
        }
    }

    /** Fails and stops the whole run (the consumer found the dataset closed). */
    public synchronized void failAll(Throwable cause) {
        fail(cause, 0);
        stopping = true;
    }

    /** The failure the consumer on {@code segment} must report, or {@code null}. */
    public Throwable failureAt(int segment) {
        return failedSegment <= segment ? failure : null;
    }

    public boolean failed() {
        return failure != null;
    }

    public int failedEpoch() {
        return epochOf(failedSegment);
    }

    public String failedThread() {
        return failedThread;
    }
}
