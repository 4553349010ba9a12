package io.pinshard.reader.loader;

import io.pinshard.memory.DataWaitMonitor;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import java.util.concurrent.atomic.AtomicInteger;
import org.agrona.CloseHelper;
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
 */
public final class Loader implements AutoCloseable {
    private static final AtomicInteger IDS = new AtomicInteger();

    private final Dataset dataset;
    private final LoaderOptions options;
    private final String name;
    /** For metrics: the epoch last started, and {@code batches} minus its batches handed out at that start. */
    private volatile int currentEpoch = -1;
    private volatile long epochBatchBase;
    private final EpochPlan plan;
    private final BatchRing ring;
    private final SampleProcessor[] processors;
    private final RecordView[] views;
    private final DataWaitMonitor dataWait;
    private Run run;
    private long images;
    private long batches;
    private long finishedRunNanos;
    private volatile boolean closed;

    private Loader(Dataset dataset, LoaderOptions options) {
        this.dataset = dataset;
        this.options = options;
        this.name = "pinshard-loader-" + IDS.incrementAndGet();
        long[] firstRecord = new long[dataset.shardCount() + 1];
        for (int s = 0; s <= dataset.shardCount(); s++) {
            firstRecord[s] = s < dataset.shardCount() ? dataset.firstRecordOf(s) : dataset.size();
        }
        this.plan = new EpochPlan(dataset.size(), firstRecord, options);
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

    /** Starts epoch {@code epoch} from its first batch, stopping any epoch still running. */
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

    /** Starts a run of {@code epoch} at {@code startBatch}: the plain split, or {@code elastic}'s when not null. */
    private synchronized Epoch start(int epoch, long startBatch, ElasticSplit elastic) {
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
        if (dataset.isClosed()) {
            throw new IllegalStateException("dataset " + dataset.directory() + " is closed: " + name
                + " cannot start epoch " + epoch);
        }
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0: " + epoch);
        }
        stopRun();
        if (!ring.enter()) { // only close(), synchronized like this method, closes the ring
            throw new IllegalStateException(name + " is closed");
        }
        try {
            int held = ring.heldBatches();
            if (held > 0) {
                throw new IllegalStateException(held + " batches of the previous epoch are still held: "
                    + "close them before starting epoch " + epoch);
            }
            if (elastic == null) {
                plan.prepare(epoch);
            } else {
                plan.prepare(epoch, elastic);
            }
            ring.reset();
        } finally {
            ring.exit();
        }
        Run next = new Run(epoch, startBatch, ring.generation(), processors.length);
        for (int w = 0; w < processors.length; w++) {
            Thread thread = new Thread(new LoaderWorker(w, dataset, options, plan, ring, processors[w], views[w], next),
                name + "-worker-" + w);
            thread.setDaemon(true);
            next.threads[w] = thread;
        }
        currentEpoch = epoch;
        epochBatchBase = batches - startBatch;
        run = next;
        for (Thread thread : next.threads) {
            thread.start();
        }
        return new Epoch(this, next, plan, ring);
    }

    /** Stops {@code which} if it is still the current run. */
    synchronized void stopRun(Run which) {
        if (run == which) {
            stopRun();
        }
    }

    /** Stops the current run's workers and waits for them. */
    synchronized void stopRun() {
        Run current = run;
        if (current == null) {
            return;
        }
        current.stop();
        boolean interrupted = false;
        for (Thread thread : current.threads) {
            while (thread != null && thread.isAlive()) {
                try {
                    thread.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        finishedRunNanos += System.nanoTime() - current.startedNanos;
        run = null;
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    void delivered(int samples) {
        images += samples;
        batches++;
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
            Run current = run;
            long nanos = finishedRunNanos + (current != null ? System.nanoTime() - current.startedNanos : 0);
            double seconds = nanos / 1e9;
            long imageBytes = (long) options.crop() * options.crop() * 3;
            double perSecond = seconds > 0 ? 1 / seconds : 0;
            double busy = nanos > 0 ? 100.0 * ring.workerCounterSum(BatchRingDescriptor.WORKER_BUSY_NANOS_OFFSET)
                / ((double) nanos * options.workers()) : 0;
            return new LoaderStats(images, batches, seconds, images * perSecond, images * imageBytes / 1e6 * perSecond,
                ring.workerCounterSum(BatchRingDescriptor.WORKER_PAYLOAD_BYTES_OFFSET) / 1e6 * perSecond,
                dataWait.dataWaitPercent(), Math.min(100, busy),
                ring.workerCounterSum(BatchRingDescriptor.WORKER_SKIPPED_OFFSET),
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
        stopRun();
        try {
            CloseHelper.closeAll(processors);
        } finally {
            CloseHelper.close(ring);
        }
    }

    boolean closed() {
        return closed;
    }

    /** One run of worker threads over (part of) an epoch. */
    static final class Run {
        private final int epoch;
        private final long startBatch;
        private final long generation;
        private final long startedNanos = System.nanoTime();
        final Thread[] threads;
        private volatile boolean stopping;
        private volatile Throwable failure;
        private volatile String failedThread;

        Run(int epoch, long startBatch, long generation, int workers) {
            this.epoch = epoch;
            this.startBatch = startBatch;
            this.generation = generation;
            this.threads = new Thread[workers];
        }

        int epoch() {
            return epoch;
        }

        long startBatch() {
            return startBatch;
        }

        long generation() {
            return generation;
        }

        boolean stopping() {
            return stopping;
        }

        void stop() {
            stopping = true;
        }

        synchronized void fail(Throwable cause) {
            if (failure == null) {
                failedThread = Thread.currentThread().getName();
                failure = cause;
            }
            stopping = true;
        }

        Throwable failure() {
            return failure;
        }

        String failedThread() {
            return failedThread;
        }
    }
}
