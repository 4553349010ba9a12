package io.pinshard.reader.loader;

import io.pinshard.memory.DataWaitMonitor;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.agrona.CloseHelper;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.bytedeco.opencv.global.opencv_core;

/**
 * The training data loader: a dataset's records as fixed-size NHWC uint8 batches in off-heap memory,
 * augmented by worker threads, with no JVM heap traffic per batch. Built once, iterated per epoch:
 *
 * <pre>{@code
 * try (Dataset dataset = Dataset.open(dir);
 *      Loader loader = Loader.open(dataset, LoaderOptions.builder().batchSize(256).crop(224).seed(42).build())) {
 *     for (int epoch = 0; epoch < epochs; epoch++) {
 *         try (Epoch batches = loader.epoch(epoch)) {
 *             for (Batch batch : batches) {
 *                 try (batch) {
 *                     train(batch.address(), batch.size(), batch.labelsAddress());
 *                 }
 *             }
 *         }
 *     }
 * }
 * }</pre>
 *
 * Determinism: batch {@code k} of epoch {@code e} holds the same records, cropped the same way, for a
 * given seed whatever the number of workers and their scheduling (see {@link EpochPlan} for the order
 * and the distributed split). One consumer thread iterates an epoch; batches may be released from any
 * thread (see {@link Batch}). {@link #close()} stops every thread and frees all native memory.
 *
 * <p>Persistent workers: the worker threads ({@link #name()}{@code -worker-N}) and their scratch memory are
 * made at the first epoch and live until {@link #close()}; between runs they park. Starting an epoch starts
 * no thread and allocates nothing on the heap: the loader hands out its two {@link Epoch} objects in turn,
 * so an {@code Epoch} is invalid once the epoch after next has started (see {@link Epoch}). When the trainer
 * iterates epochs back to back, the workers do not wait at the boundary: once the last sample of epoch
 * {@code e} is claimed they go on with epoch {@code e + 1}'s (its order prepared by a worker, into the
 * ring's free slots), and {@code epoch(e + 1)} called after epoch {@code e} handed out its last batch
 * continues with those batches. Any other start (another epoch, a {@link #resume} but of the next epoch's
 * first batch on the same world size, an epoch closed before its end, a worker failure) stops the workers and
 * resets the ring: what they filled ahead is discarded. An elastic resume (on another world size) is such a
 * start; the epoch after the resized one continues as usual, on the plain plan of the new world.
 */
public final class Loader implements AutoCloseable {
    private static final AtomicInteger IDS = new AtomicInteger();

    private final Dataset dataset;
    private final LoaderOptions options;
    private final String name;
    /** For metrics: the epoch last started, and {@code batches} minus its batches handed out at that start. */
    private volatile int currentEpoch = -1;
    private volatile long epochBatchBase;
    /** Odd while an epoch start changes {@code currentEpoch} and {@code epochBatchBase}; see {@link #positionVersion}. */
    private volatile long positionVersion;
    private final EpochPlan plan;
    private final BatchRing ring;
    private final SampleProcessor[] processors;
    private final RecordView[] views;
    private final DataWaitMonitor dataWait;
    private final LoaderRun run;
    private final Epoch[] epochs;
    private final BackoffIdleStrategy stopIdle = new BackoffIdleStrategy(64, 16, 1_000, 200_000);
    private LoaderWorker[] workers;
    private volatile Thread[] threads;
    private volatile Thread waitingConsumer;
    /** Epoch starts so far; the {@link Epoch} handed out for the latest is the current one. */
    private volatile long starts;
    /** Whether the workers are in a run (between a reset and a stop). */
    private boolean running;
    private long images;
    /** Batches handed out; volatile for the prefetcher, which follows the consumer. */
    private volatile long batches;
    /** For a streamed dataset (else null): fetches shards ahead of the workers within the cache limit. */
    private final ShardPrefetcher prefetcher;
    /** Corrupt records replaced in the batches handed out (not in work filled ahead and discarded). */
    private long skipped;
    /** Nanos of runs that ended, and when the current one started (0: none running), for {@link #stats()}. */
    private volatile long finishedRunNanos;
    private volatile long runStartedNanos;
    private volatile boolean closed;
    private volatile boolean terminating;

    private Loader(Dataset dataset, LoaderOptions options) {
        this.dataset = dataset;
        this.options = options;
        this.name = "pinshard-loader-" + IDS.incrementAndGet();
        long[] firstRecord = new long[dataset.shardCount() + 1];
        for (int s = 0; s <= dataset.shardCount(); s++) {
            firstRecord[s] = s < dataset.shardCount() ? dataset.firstRecordOf(s) : dataset.size();
        }
        this.plan = new EpochPlan(dataset.size(), firstRecord, options);
        if (dataset.isStreamed()) {
            ShardPrefetcher.check(dataset, options); // before anything is made: random order over a large dataset
        }
        // A closed dataset is refused here, naming it. Shapes, codecs and channel counts need no walk over the
        // records: Dataset.open checked every entry, and each read checks its entry again.
        dataset.acquire();
        dataset.release();
        options.resampler().effective(); // VECTOR where it cannot run fails here, before any thread or memory
        opencv_core.setNumThreads(1); // our workers are the parallelism; OpenCV's pool would oversubscribe
        this.ring = new BatchRing(name, options);
        this.processors = new SampleProcessor[options.workers()];
        this.views = new RecordView[options.workers()];
        try {
            for (int w = 0; w < processors.length; w++) {
                processors[w] = new SampleProcessor(options, dataset);
                views[w] = new RecordView();
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
        this.dataWait = new DataWaitMonitor("host batches from " + name,
            "Try more workers (now " + options.workers() + "), raw instead of jpeg/lz4 shards, a smaller stored "
                + "image size, or a deeper prefetch (now " + options.prefetch() + ").",
            options.dataWaitWarnFraction(), options.dataWaitWindow(), 1);
        this.run = new LoaderRun(plan);
        this.epochs = new Epoch[] {new Epoch(this, run, ring), new Epoch(this, run, ring)};
        this.prefetcher = dataset.isStreamed() ? new ShardPrefetcher(this, dataset, options, firstRecord) : null;
        if (prefetcher != null) {
            prefetcher.start();
        }
    }

    /**
     * Builds a loader over an open dataset. Closing the dataset under the loader stops it: the next
     * {@link Epoch#next()} throws a {@link LoaderException} naming the dataset, and the workers exit.
     *
     * @throws IllegalStateException naming the dataset when it is already closed
     */
    public static Loader open(Dataset dataset, LoaderOptions options) {
        Loader loader = new Loader(dataset, options);
        LoaderEvents.opened(loader);
        return loader;
    }

    public Dataset dataset() {
        return dataset;
    }

    public LoaderOptions options() {
        return options;
    }

    /** Thread name prefix of this loader's workers. */
    public String name() {
        return name;
    }

    /** Batches each rank gets per epoch (equal on every rank). */
    public long batchesPerEpoch() {
        return plan.batchesPerEpoch();
    }

    /** Samples each rank gets per epoch. */
    public long samplesPerEpoch() {
        return plan.samplesPerRank();
    }

    /** Ring slots (= {@link LoaderOptions#prefetch()}). */
    public int slots() {
        return ring.slots();
    }

    /** For metrics: ring slots holding samples now (being filled, ready or held); throws once closed. */
    int ringOccupied() {
        if (!ring.enter()) {
            throw new IllegalStateException(name + " is closed");
        }
        try {
            return ring.occupiedSlots();
        } finally {
            ring.exit();
        }
    }

    /**
     * Even when {@link #currentEpoch()} and {@link #batchInEpoch()} are a consistent pair: read it, the two, and it
     * again; equal and even means they belong together (an epoch start changes both; only it writes this).
     */
    long positionVersion() {
        return positionVersion;
    }

    /** For metrics: the epoch last started, -1 before any. */
    int currentEpoch() {
        return currentEpoch;
    }

    /** For metrics: batches of that epoch handed out so far (counting those before a resume). */
    long batchInEpoch() {
        return currentEpoch < 0 ? 0 : batches - epochBatchBase;
    }

    /** The data-wait guard fed by every {@code next()}. */
    public DataWaitMonitor dataWait() {
        return dataWait;
    }

    /**
     * Starts epoch {@code epoch} from its first batch, stopping any epoch still running. Right after the
     * previous epoch {@code epoch - 1} handed out its last batch it continues the workers' run, whose first
     * batches of {@code epoch} may be filled already; otherwise it resets the ring. Allocation-free; the
     * returned object replaces the one handed out two starts before.
     *
     * @throws IllegalStateException when the loader or its dataset is closed, or batches are still held
     */
    public Epoch epoch(int epoch) {
        return start(epoch, 0, null);
    }

    /**
     * Continues an epoch from a state exported by {@link Epoch#state()} of a loader with the same dataset and
     * options but for workers, prefetch, rank and world size. Any rank's state will do (in lockstep they agree).
     * On the world size the state was saved on, this rank gets exactly the batches it had left.
     *
     * <p>On another world size (elastic resume) the new ranks share out the epoch's unconsumed samples, each
     * delivered exactly once, in equal batch counts. The epoch's samples are the positions of its order that
     * the world it started on visits (all records without {@code dropLast}, padded copies counted once; with
     * {@code dropLast} those of the ranks' whole batches); the unconsumed ones are those no rank has handed out
     * yet, in epoch order. Rank {@code r'} of {@code w'} takes the {@code r'}-th of {@code w'} contiguous blocks
     * of them (sizes differing by at most one, the longer first), in {@code ceil(R / (w' x batch))} batches
     * filled greedily: full batches and a smaller last one, one sample moved from the second-last batch where
     * the last would be empty, and an empty last batch only where fewer samples than ranks are left. Nothing
     * is padded or dropped, also with {@code dropLast}. Augmentation depends on (seed, epoch, record) only, so
     * a record is cropped the same on any rank. A later resize in the same epoch is recorded in the state
     * (at most {@link LoaderState#MAX_SEGMENTS}); the next epoch is a plain one on the new world. Full rules:
     * docs/loader.md, "Resume".
     *
     * <p>A resume resets the workers' run (what they filled ahead is discarded) unless it is exactly the plain
     * start {@link #epoch(int)} would continue: the next epoch's first batch, on the same world size, right
     * after the current epoch handed out its last batch. After an elastic resume, {@code epoch(e + 1)} continues
     * into the next epoch's plain plan on the new world, filled ahead like any other.
     *
     * @throws IllegalArgumentException when the state comes from another seed, or does not fit this dataset and
     *                                  these options (more batches consumed than the epoch had)
     */
    public Epoch resume(LoaderState state) {
        if (state.seed() != options.seed()) {
            throw new IllegalArgumentException("state " + state + " was saved with seed " + state.seed()
                + ", this loader's is " + options.seed() + ": the epoch orders differ");
        }
        ElasticSplit split = ElasticSplit.resume(state, dataset.size(), options);
        if (split != null) {
            return start(state.epoch(), split.startBatch(), split);
        }
        if (state.batchesConsumed() > plan.batchesPerEpoch()) {
            throw new IllegalArgumentException("state " + state + " is past the end of the epoch ("
                + plan.batchesPerEpoch() + " batches)");
        }
        return start(state.epoch(), state.batchesConsumed(), null);
    }

    /**
     * Starts epoch {@code epoch} at {@code startBatch}: the plain split, or {@code elastic}'s when not null
     * (bound to plan buffer 0 here, before any worker reads it). Only a plain start of the next epoch right
     * after the current one's last batch continues the run; any other resets it.
     */
    private synchronized Epoch start(int epoch, long startBatch, ElasticSplit elastic) {
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
        if (dataset.isClosed()) {
            throw new IllegalStateException("dataset " + dataset.location() + " is closed: " + name
                + " cannot start epoch " + epoch);
        }
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0: " + epoch);
        }
        if (!ring.enter()) { // only close(), synchronized like this method, closes the ring
            throw new IllegalStateException(name + " is closed");
        }
        try {
            int held = ring.heldBatches();
            if (held > 0) {
                throw new IllegalStateException(held + " batches of the previous epoch are still held: "
                    + "close them before starting epoch " + epoch);
            }
            Epoch previous = epochs[(int) (starts & 1)];
            int segment;
            if (elastic == null && continues(previous, epoch, startBatch)) {
                segment = previous.segment() + 1; // its first batches are probably filled already
                run.adopt(segment);
            } else {
                stopRun(); // discards what the workers filled ahead
                if (elastic == null) {
                    plan.prepare(0, epoch);
                } else {
                    plan.prepare(0, epoch, elastic);
                }
                ring.reset();
                startWorkers();
                run.reset(epoch, startBatch, elastic);
                running = true;
                runStartedNanos = run.startedNanos();
                segment = 0;
            }
            positionVersion++; // odd: the pair below is changing (the prefetcher reads it as one)
            currentEpoch = epoch;
            epochBatchBase = batches - run.firstBatch(segment);
            positionVersion++;
            wakeWorkers();
            long start = starts + 1;
            Epoch next = epochs[(int) (start & 1)].open(start, segment);
            starts = start;
            return next;
        } finally {
            ring.exit();
        }
    }

    /**
     * Whether epoch {@code epoch} from batch {@code startBatch} is the next segment of the running run: the
     * current epoch handed out its last batch, and this is the next epoch from its first batch.
     */
    private boolean continues(Epoch current, int epoch, long startBatch) {
        return running && starts > 0 && !run.stopping() && !run.failed() && startBatch == 0
            && current.finished() && current.epoch() < Integer.MAX_VALUE && epoch == current.epoch() + 1
            && run.hasSegment(current.segment() + 1);
    }

    /** Starts the worker threads at the first epoch; they live until {@link #close()}. */
    private void startWorkers() {
        if (threads != null) {
            return;
        }
        LoaderWorker[] made = new LoaderWorker[processors.length];
        Thread[] started = new Thread[processors.length];
        for (int w = 0; w < processors.length; w++) {
            made[w] = new LoaderWorker(w, this, plan, ring, processors[w], views[w], run);
            started[w] = new Thread(made[w], name + "-worker-" + w);
            started[w].setDaemon(true);
        }
        workers = made;
        threads = started;
        for (Thread thread : started) {
            thread.start();
        }
    }

    /** Unparks every worker: the run changed (a start, a stop, a failure, close). */
    void wakeWorkers() {
        Thread[] all = threads;
        if (all != null) {
            for (Thread thread : all) {
                LockSupport.unpark(thread);
            }
        }
    }

    /** The consumer waits for a batch from now on ({@code null}: no longer): {@link #batchFilled} unparks it. */
    void consumerWaits(Thread consumer) {
        waitingConsumer = consumer;
    }

    /**
     * A worker completed a batch: unparks the consumer if it waits. Its backoff alone would find the batch at
     * its next poll, up to 0.2 ms later and, on a busy machine, a time slice or more; with epochs shorter than
     * the ring (small datasets) that latency, not the workers, set the pace. Volatile write of the waiter, then
     * read of the fill count, against the worker's fenced count then read of the waiter: one sees the other.
     */
    void batchFilled() {
        Thread consumer = waitingConsumer;
        if (consumer != null) {
            LockSupport.unpark(consumer);
        }
    }

    /** Whether {@code epoch} is the loader's current epoch (the latest handed out). */
    boolean isCurrent(Epoch epoch) {
        return epoch.start() == starts;
    }

    /** {@code epoch} was closed: one closed before its end stops the workers if it is still the current one. */
    synchronized void epochClosed(Epoch epoch) {
        if (isCurrent(epoch) && !epoch.finished()) {
            stopRun();
        }
    }

    /** Stops the current run and waits until every worker has left it (each finishes the sample in hand). */
    private void stopRun() {
        if (!running) {
            return;
        }
        run.stop();
        wakeWorkers();
        long generation = run.generation();
        for (int w = 0; w < workers.length; w++) {
            stopIdle.reset();
            while (!workers[w].hasLeft(generation) && threads[w].isAlive()) {
                stopIdle.idle();
            }
        }
        runStartedNanos = 0;
        finishedRunNanos += System.nanoTime() - run.startedNanos();
        running = false;
    }

    /** Samples the workers have written so far (tests: whether they filled ahead). */
    long samplesFilled() {
        if (!ring.enter()) {
            throw new IllegalStateException(name + " is closed");
        }
        try {
            return ring.workerCounterSum(BatchRingDescriptor.WORKER_SAMPLES_OFFSET);
        } finally {
            ring.exit();
        }
    }

    void delivered(int samples, int replacedRecords) {
        images += samples;
        batches++;
        skipped += replacedRecords;
        if (prefetcher != null) {
            prefetcher.wake();
        }
    }

    /**
     * Throughput and wait figures since the loader was opened.
     *
     * @throws IllegalStateException once the loader is closed (the worker counters lived in its memory)
     */
    public LoaderStats stats() {
        if (!ring.enter()) {
            throw new IllegalStateException(name + " is closed: its statistics went with it");
        }
        try {
            long startedNanos = runStartedNanos;
            long nanos = finishedRunNanos + (startedNanos != 0 ? System.nanoTime() - startedNanos : 0);
            double seconds = nanos / 1e9;
            long imageBytes = (long) options.crop() * options.crop() * 3;
            double perSecond = seconds > 0 ? 1 / seconds : 0;
            double busy = nanos > 0 ? 100.0 * ring.workerCounterSum(BatchRingDescriptor.WORKER_BUSY_NANOS_OFFSET)
                / ((double) nanos * options.workers()) : 0;
            return new LoaderStats(images, batches, seconds, images * perSecond, images * imageBytes / 1e6 * perSecond,
                ring.workerCounterSum(BatchRingDescriptor.WORKER_PAYLOAD_BYTES_OFFSET) / 1e6 * perSecond,
                dataWait.dataWaitPercent(), Math.min(100, busy),
                skipped,
                ring.workerCounterSum(BatchRingDescriptor.WORKER_HEAP_BYTES_OFFSET));
        } finally {
            ring.exit();
        }
    }

    /**
     * Stops every worker and frees all native memory, including that of batches still held, once batch reads
     * and {@code next()} calls in progress on other threads have left (later ones throw). Idempotent; callable
     * from any thread.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        LoaderEvents.closed(this);
        if (prefetcher != null) {
            prefetcher.stopPlanning(); // no new fetch; those in flight finish for the workers waiting on them
        }
        stopRun();
        terminating = true;
        joinWorkers();
        if (prefetcher != null) {
            prefetcher.stop();
        }
        try {
            CloseHelper.closeAll(processors);
        } finally {
            CloseHelper.close(ring);
        }
    }

    boolean closed() {
        return closed;
    }

    /** Whether the workers should end their threads (set by close once no run is left). */
    boolean terminating() {
        return terminating;
    }

    private void joinWorkers() {
        Thread[] all = threads;
        if (all == null) {
            return;
        }
        wakeWorkers();
        boolean interrupted = false;
        for (Thread thread : all) {
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
