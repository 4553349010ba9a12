package io.pinshard.loader.work;

import io.pinshard.loader.sample.ElasticSplit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.BackoffIdleStrategy;

/**
 * The state a loader's parts share, in one place: which epoch start is current, where the consumer stands (epoch,
 * batches and samples handed out), who waits (the consumer for a batch, the workers for a run, the prefetcher for the
 * consumer), the lifecycle of runs (started, stopped, how long they ran) and of the loader (closed, terminating). The
 * {@link io.pinshard.loader.Epoch}s, the {@link LoaderWorker}s and the {@link ShardPrefetcher} read and signal through it; the
 * {@link io.pinshard.loader.Loader} makes them, wires them to it and answers the public API from it.
 *
 * <p>Why beside {@link LoaderRun} rather than in it: a run is the workers' stream of tickets from one ring reset to
 * the next stop; the consumer rewrites it while every worker is idle and publishes it with its generation, and its
 * fields mean nothing across runs. This object lives as long as the loader, spans any number of runs, and its fields
 * change while everything runs (volatile, or written by the consumer only). It owns the current run's lifecycle
 * ({@link #startRun}, {@link #stopRun}): what a run is stays in {@link LoaderRun}, whether one is going on and for
 * how long is here.
 *
 * <p>Threads: {@link #stopRun}, {@link #epochClosed} and the loader's epoch starts and close hold this object's
 * monitor; the position fields are written by the consumer (an epoch start, a batch handed out) and read anywhere.
 */
public final class LoaderControl {
    private final String name;
    private final LoaderRun run;
    private final BackoffIdleStrategy stopIdle = new BackoffIdleStrategy(64, 16, 1_000, 200_000);
    /** For metrics: the epoch last started, and {@code batches} minus its batches handed out at that start. */
    private volatile int currentEpoch = -1;
    private volatile long epochBatchBase;
    /** Odd while an epoch start changes {@code currentEpoch} and {@code epochBatchBase}; see {@link #positionVersion}. */
    private volatile long positionVersion;
    /** Epoch starts so far; the {@link io.pinshard.loader.Epoch} handed out for the latest is the current one. */
    private volatile long starts;
    private long images;
    /** Batches handed out; volatile for the prefetcher, which follows the consumer. */
    private volatile long batches;
    /** Corrupt records replaced in the batches handed out (not in work filled ahead and discarded). */
    private long skipped;
    /** Unparked at each batch handed out (the prefetcher's planner), or null. */
    private volatile Thread follower;
    private volatile Thread waitingConsumer;
    private volatile Thread[] workers;
    /** Per worker: the last run generation it has left (0: none yet); {@link #stopRun} waits for it. */
    private final AtomicLongArray leftGeneration;
    /** Whether the workers are in a run (between a start and a stop). */
    private boolean running;
    /** Nanos of runs that ended, and when the current one started (0: none running), for the statistics. */
    private volatile long finishedRunNanos;
    private volatile long runStartedNanos;
    private volatile boolean closed;
    private volatile boolean terminating;

    public LoaderControl(String name, LoaderRun run, int workers) {
        this.name = name;
        this.run = run;
        this.leftGeneration = new AtomicLongArray(workers);
    }

    /** The loader's name, for messages and thread names. */
    public String name() {
        return name;
    }

    // ---- which epoch start is current, and where the consumer stands

    /** Epoch starts so far. */
    public long starts() {
        return starts;
    }

    /** Start number {@code start} was handed out: the {@link io.pinshard.loader.Epoch} opened for it is the current one from now on. */
    public void started(long start) {
        starts = start;
    }

    /** Whether epoch start {@code start} is the loader's current one (the latest handed out). */
    public boolean isCurrent(long start) {
        return start == starts;
    }

    /** The consumer is at batch {@code firstBatch} of {@code epoch} now (an epoch start; consumer thread). */
    public void epochStarted(int epoch, long firstBatch) {
        positionVersion++; // odd: the pair below is changing (the prefetcher reads it as one)
        currentEpoch = epoch;
        epochBatchBase = batches - firstBatch;
        positionVersion++;
    }

    /**
     * Even when {@link #currentEpoch()} and {@link #batchInEpoch()} are a consistent pair: read it, the two, and it
     * again; equal and even means they belong together (an epoch start changes both; only it writes this).
     */
    long positionVersion() {
        return positionVersion;
    }

    /** The epoch last started, -1 before any. */
    public int currentEpoch() {
        return currentEpoch;
    }

    /** Batches of that epoch handed out so far (counting those before a resume). */
    public long batchInEpoch() {
        return currentEpoch < 0 ? 0 : batches - epochBatchBase;
    }

    /** The consumer handed out a batch of {@code samples}, in which workers replaced {@code replacedRecords}. */
    public void delivered(int samples, int replacedRecords) {
        images += samples;
        batches++;
        skipped += replacedRecords;
        Thread following = follower;
        if (following != null) {
            LockSupport.unpark(following);
        }
    }

    /** {@code thread} follows the consumer (the prefetcher's planner): it is unparked at each batch handed out. */
    public void followedBy(Thread thread) {
        follower = thread;
    }

    public long images() {
        return images;
    }

    public long batches() {
        return batches;
    }

    public long skipped() {
        return skipped;
    }

    // ---- who waits

    /** The consumer waits for a batch from now on ({@code null}: no longer): {@link #batchFilled} unparks it. */
    public void consumerWaits(Thread consumer) {
        waitingConsumer = consumer;
    }

    /**
     * A worker completed a batch: unparks the consumer if it waits. Its backoff alone would find the batch at
     * its next poll, up to 5 ms later (Epoch's cap) and, on a busy machine, a time slice or more; with epochs shorter than
     * the ring (small datasets) that latency, not the workers, set the pace. Volatile write of the waiter, then
     * read of the fill count, against the worker's fenced count then read of the waiter: one sees the other.
     */
    void batchFilled() {
        Thread consumer = waitingConsumer;
        if (consumer != null) {
            LockSupport.unpark(consumer);
        }
    }

    /** The worker threads, started (once, at the first epoch): from now on they are woken and waited for here. */
    public void workersStarted(Thread[] threads) {
        workers = threads;
    }

    public boolean workersStarted() {
        return workers != null;
    }

    /** Unparks every worker: the run changed (a start, a stop, a failure, close). */
    public void wakeWorkers() {
        Thread[] all = workers;
        if (all != null) {
            for (Thread thread : all) {
                LockSupport.unpark(thread);
            }
        }
    }

    /** Worker {@code worker} is outside run generation {@code generation}: it touches neither the ring nor the plan. */
    void workerLeft(int worker, long generation) {
        leftGeneration.set(worker, generation);
    }

    // ---- the lifecycle of runs

    /**
     * Starts a run at batch {@code startBatch} of {@code epoch}, on the plain plan or {@code elastic} (see
     * {@link LoaderRun#reset}): every worker idle, the ring reset and the run's first order prepared.
     */
    public synchronized void startRun(int epoch, long startBatch, ElasticSplit elastic) {
        run.reset(epoch, startBatch, elastic);
        running = true;
        runStartedNanos = run.startedNanos();
    }

    /** Whether the workers are in a run (started and not stopped). */
    public synchronized boolean running() {
        return running;
    }

    /** Stops the current run and waits until every worker has left it (each finishes the sample in hand). */
    public synchronized void stopRun() {
        if (!running) {
            return;
        }
        run.stop();
        wakeWorkers();
        long generation = run.generation();
        Thread[] threads = workers;
        for (int w = 0; w < threads.length; w++) {
            stopIdle.reset();
            while (leftGeneration.get(w) < generation && threads[w].isAlive()) {
                stopIdle.idle();
            }
        }
        runStartedNanos = 0;
        finishedRunNanos += System.nanoTime() - run.startedNanos();
        running = false;
    }

    /** Nanos the workers have been in runs since the loader opened, the current one included. */
    public long runNanos() {
        long startedNanos = runStartedNanos;
        return finishedRunNanos + (startedNanos != 0 ? System.nanoTime() - startedNanos : 0);
    }

    /**
     * Epoch start {@code start} was closed, {@code finished} or not: one closed before its end stops the workers if
     * it is still the current one.
     */
    public synchronized void epochClosed(long start, boolean finished) {
        if (isCurrent(start) && !finished) {
            stopRun();
        }
    }

    // ---- the lifecycle of the loader

    /** Marks the loader closed; false when it was already. */
    public synchronized boolean close() {
        if (closed) {
            return false;
        }
        closed = true;
        return true;
    }

    public boolean closed() {
        return closed;
    }

    /** Whether the workers should end their threads (set by {@link #terminate} once no run is left). */
    boolean terminating() {
        return terminating;
    }

    /** Stops the run, tells the workers to end and waits for their threads (the loader's close). */
    public synchronized void terminate() {
        stopRun();
        terminating = true;
        Thread[] all = workers;
        if (all == null) {
            return;
        }
        wakeWorkers();
        joinAll(all);
    }

    /** Waits for {@code threads} to end, through interrupts (the caller's interrupt flag is set again after). */
    static void joinAll(Thread... threads) {
        boolean interrupted = false;
        for (Thread thread : threads) {
            while (thread.isAlive()) {
                try {
                    thread.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
