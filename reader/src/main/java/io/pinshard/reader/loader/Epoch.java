package io.pinshard.reader.loader;

import io.pinshard.memory.DataWaitMonitor;
import io.pinshard.reader.Dataset;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.agrona.concurrent.BackoffIdleStrategy;

/**
 * One pass over this rank's batches of an epoch, in order. Iterate it once (it is its own iterator) on
 * one thread; close it to stop the workers early (breaking out of the loop inside try-with-resources).
 * {@link #next()} blocks with Agrona's {@link BackoffIdleStrategy} (spin, yield, then park up to 0.2 ms)
 * and rethrows any worker failure as a {@link LoaderException}. Allocation-free per batch. Once the loader or
 * its dataset is closed, {@code next()} throws naming it (the workers read nothing more of a closed dataset).
 */
public final class Epoch implements Iterator<Batch>, Iterable<Batch>, AutoCloseable {
    private final Loader loader;
    private final Dataset dataset;
    private final Loader.Run run;
    private final EpochPlan plan;
    private final BatchRing ring;
    private final BackoffIdleStrategy idle = new BackoffIdleStrategy(256, 64, 1_000, 200_000);
    private final DataWaitMonitor dataWait;
    private long nextBatch;
    private boolean closed;

    Epoch(Loader loader, Loader.Run run, EpochPlan plan, BatchRing ring) {
        this.loader = loader;
        this.dataset = loader.dataset();
        this.run = run;
        this.plan = plan;
        this.ring = ring;
        this.dataWait = loader.dataWait();
        this.nextBatch = run.startBatch();
    }

    public int epoch() {
        return run.epoch();
    }

    /** Batches of this epoch on this rank, from the first (also when resumed; resized: earlier segments'). */
    public long batches() {
        return plan.batches();
    }

    /** Batches handed out so far, counting those consumed before a resume. */
    public long batchesConsumed() {
        return nextBatch;
    }

    /** The state to checkpoint: a loader resumed from it continues with the next batch. */
    public LoaderState state() {
        LoaderOptions options = loader.options();
        return new LoaderState(run.epoch(), nextBatch, options.seed(), options.worldSize(), options.rank(),
            plan.segments());
    }

    @Override
    public boolean hasNext() {
        return !closed && nextBatch < plan.batches();
    }

    /**
     * The next batch, blocking until workers have filled it. The caller holds it until {@link Batch#close()}.
     *
     * @throws LoaderException       when a worker failed (the cause names the corrupt record) or the dataset was
     *                               closed under the loader
     * @throws IllegalStateException when every ring slot is held by the caller, or the epoch or loader was closed
     */
    @Override
    public Batch next() {
        if (closed) {
            throw new IllegalStateException("epoch " + run.epoch() + " of " + loader.name() + " is closed");
        }
        if (nextBatch >= plan.batches()) {
            throw new NoSuchElementException("epoch " + run.epoch() + " has " + plan.batches() + " batches");
        }
        if (!ring.enter()) { // the loader's close waits for this call to leave the ring
            throw loaderClosed();
        }
        try {
            return take();
        } finally {
            ring.exit();
        }
    }

    private Batch take() {
        if (dataset.isClosed()) {
            IllegalStateException cause = new IllegalStateException("dataset " + dataset.directory() + " is closed");
            run.fail(cause); // the workers stop too
            throw new LoaderException(loader.name() + ": dataset " + dataset.directory() + " was closed under the "
                + "loader in epoch " + run.epoch(), cause);
        }
        if (ring.heldBatches() >= ring.slots()) {
            throw new IllegalStateException("all " + ring.slots() + " ring slots are held: close a batch before "
                + "asking for the next, or raise prefetch");
        }
        long sequence = nextBatch - run.startBatch();
        int slot = (int) (sequence % ring.slots());
        int samples = plan.samplesIn(nextBatch);
        long started = dataWait.waitStarted();
        idle.reset();
        while (!ring.ready(slot, sequence, samples)) {
            Throwable failure = run.failure();
            if (failure != null) {
                throw new LoaderException(loader.name() + ": worker " + run.failedThread() + " failed in epoch "
                    + run.epoch() + ": " + failure.getMessage(), failure);
            }
            if (loader.closed()) {
                throw loaderClosed();
            }
            if (run.stopping()) {
                throw new IllegalStateException("epoch " + run.epoch() + " was stopped");
            }
            idle.idle();
        }
        dataWait.waitEnded(started);
        Batch batch = ring.batch(slot);
        ring.markHeld();
        batch.open(run.epoch(), nextBatch, sequence, samples, run.generation());
        nextBatch++;
        loader.delivered(samples);
        return batch;
    }

    private IllegalStateException loaderClosed() {
        return new IllegalStateException("epoch " + run.epoch() + ": " + loader.name() + " is closed");
    }

    @Override
    public Iterator<Batch> iterator() {
        return this;
    }

    /** Stops this epoch's workers (if it is still the loader's current one). Held batches stay valid until closed. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            loader.stopRun(run);
        }
    }
}
