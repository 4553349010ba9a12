package io.pinshard.loader;

import io.pinshard.loader.options.SamplingOptions;
import io.pinshard.loader.options.LoaderState;
import io.pinshard.loader.ring.Batch;
import io.pinshard.loader.ring.BatchRing;
import io.pinshard.loader.work.LoaderControl;
import io.pinshard.loader.work.LoaderRun;
import io.pinshard.datawait.DataWaitMonitor;
import io.pinshard.reader.Dataset;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.agrona.concurrent.BackoffIdleStrategy;

/**
 * One pass over this rank's batches of an epoch, in order. Iterate it once (it is its own iterator) on
 * one thread; close it to stop the workers early (breaking out of the loop inside try-with-resources).
 * {@link #next()} blocks with Agrona's {@link BackoffIdleStrategy} (spin, yield, then park up to 5 ms;
 * the worker that completes the batch unparks it, so the cap only bounds how late a worker's failure, a close or
 * a stop is seen: at 0.2 ms a fresh server's publisher woke ~5,000 times a second through its first batch, 0.13-0.56
 * CPU s of two shared cores) and rethrows any worker failure as a {@link LoaderException}. Allocation-free per batch. Once the loader or
 * its dataset is closed, {@code next()} throws naming it (the workers read nothing more of a closed dataset).
 *
 * <p>A loader owns two {@code Epoch} objects and hands them out in turn, so starting an epoch allocates
 * nothing: an {@code Epoch} is valid until the loader starts the epoch after next. Used after the next epoch
 * started, it refuses {@code next()} ("superseded"), its {@code close()} does nothing and its accessors still
 * describe it; a reference kept longer describes whatever epoch the object was handed out for since.
 */
public final class Epoch implements Iterator<Batch>, Iterable<Batch>, AutoCloseable {
    private final LoaderControl control;
    private final Dataset dataset;
    private final SamplingOptions sampling;
    private final LoaderRun run;
    private final BatchRing ring;
    private final BackoffIdleStrategy idle = new BackoffIdleStrategy(256, 64, 1_000, 5_000_000);
    private final DataWaitMonitor dataWait;
    private long start;
    private int epoch;
    private int segment;
    private long sequenceBase;
    private long firstBatch;
    private long batches;
    private List<LoaderState.Segment> worldSegments;
    private long nextBatch;
    private boolean closed;

    Epoch(LoaderControl control, LoaderRun run, BatchRing ring, Dataset dataset, SamplingOptions sampling,
          DataWaitMonitor dataWait) {
        this.control = control;
        this.dataset = dataset;
        this.sampling = sampling;
        this.run = run;
        this.ring = ring;
        this.dataWait = dataWait;
    }

    /** Re-aims this object at start {@code startNumber} of the loader: run segment {@code runSegment}. */
    Epoch open(long startNumber, int runSegment) {
        this.start = startNumber;
        this.epoch = run.epochOf(runSegment);
        this.segment = runSegment;
        this.sequenceBase = run.sequenceBase(runSegment);
        this.firstBatch = run.firstBatch(runSegment);
        this.batches = run.batches(runSegment);
        this.worldSegments = run.worldSegments(runSegment);
        this.nextBatch = firstBatch;
        this.closed = false;
        return this;
    }

    /** Which of the loader's epoch starts this object was last handed out for. */
    long start() {
        return start;
    }

    /** The run segment this epoch is. */
    int segment() {
        return segment;
    }

    /** Whether every batch was handed out. */
    boolean finished() {
        return nextBatch >= batches;
    }

    public int epoch() {
        return epoch;
    }

    /** Batches of this epoch on this rank, from the first (also when resumed; resized: earlier segments'). */
    public long batches() {
        return batches;
    }

    /** Batches handed out so far, counting those consumed before a resume. */
    public long batchesConsumed() {
        return nextBatch;
    }

    /** The state to checkpoint: a loader resumed from it continues with the next batch. */
    public LoaderState state() {
        return new LoaderState(epoch, nextBatch, sampling.seed(), sampling.worldSize(), sampling.rank(), worldSegments);
    }

    @Override
    public boolean hasNext() {
        return !closed && nextBatch < batches;
    }

    /**
     * The next batch, blocking until workers have filled it. The caller holds it until {@link io.pinshard.loader.ring.Batch#close()}.
     *
     * @throws LoaderException       when a worker failed (the cause names the corrupt record) or the dataset was
     *                               closed under the loader
     * @throws IllegalStateException when every ring slot is held by the caller, or the epoch or loader was closed,
     *                               or the loader started another epoch since
     */
    @Override
    public Batch next() {
        if (closed) {
            throw new IllegalStateException("epoch " + epoch + " of " + control.name() + " is closed");
        }
        if (nextBatch >= batches) {
            throw new NoSuchElementException("epoch " + epoch + " has " + batches + " batches");
        }
        if (!ring.enter()) { // the loader's close waits for this call to leave the ring
            throw loaderClosed();
        }
        try {
            if (!control.isCurrent(start)) {
                throw new IllegalStateException("epoch " + epoch + " of " + control.name() + " was superseded: the "
                    + "loader started another epoch since");
            }
            return take();
        } finally {
            ring.exit();
        }
    }

    /**
     * The ring slot the next batch will occupy ({@link io.pinshard.loader.ring.Batch#slot()}), without waiting for it: lets a consumer that
     * keeps per-slot resources see that it still holds that slot.
     */
    public int nextSlot() {
        return (int) ((sequenceBase + (nextBatch - firstBatch)) % ring.slots());
    }

    private Batch take() {
        if (dataset.isClosed()) {
            IllegalStateException cause = new IllegalStateException("dataset " + dataset.location() + " is closed");
            run.failAll(cause); // the workers stop too
            control.wakeWorkers();
            throw new LoaderException(control.name() + ": dataset " + dataset.location() + " was closed under the "
                + "loader in epoch " + epoch, cause);
        }
        if (ring.heldBatches() >= ring.slots()) {
            throw new IllegalStateException("all " + ring.slots() + " ring slots are held: close a batch before "
                + "asking for the next, or raise prefetch");
        }
        long sequence = sequenceBase + (nextBatch - firstBatch);
        int slot = (int) (sequence % ring.slots());
        int samples = run.samplesIn(segment, nextBatch);
        long started = dataWait.waitStarted();
        if (!ring.ready(slot, sequence, samples)) {
            await(slot, sequence, samples);
        }
        dataWait.waitEnded(started, epoch, samples);
        Batch batch = ring.batch(slot);
        ring.markHeld();
        batch.open(epoch, nextBatch, sequence, samples, ring.generation());
        nextBatch++;
        control.delivered(samples, batch.takeSkipped());
        return batch;
    }

    /** Backs off until ring batch {@code sequence} is complete; the worker completing it unparks this thread. */
    private void await(int slot, long sequence, int samples) {
        idle.reset();
        control.consumerWaits(Thread.currentThread());
        try {
            awaitReady(slot, sequence, samples);
        } finally {
            control.consumerWaits(null);
        }
    }

    private void awaitReady(int slot, long sequence, int samples) {
        while (!ring.ready(slot, sequence, samples)) {
            Throwable failure = run.failureAt(segment);
            if (failure != null) {
                throw new LoaderException(control.name() + ": worker " + run.failedThread() + " failed in epoch "
                    + run.failedEpoch() + ": " + failure.getMessage(), failure);
            }
            if (control.closed()) {
                throw loaderClosed();
            }
            if (run.stopping()) {
                throw new IllegalStateException("epoch " + epoch + " was stopped");
            }
            idle.idle();
        }
    }

    private IllegalStateException loaderClosed() {
        return new IllegalStateException("epoch " + epoch + ": " + control.name() + " is closed");
    }

    @Override
    public Iterator<Batch> iterator() {
        return this;
    }

    /**
     * Ends this epoch. Closed before its last batch was handed out, it stops the workers (if it is still the
     * loader's current epoch); closed after, the workers go on with the next epoch's first batches. Held
     * batches stay valid until closed.
     */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            control.epochClosed(start, finished());
        }
    }
}
