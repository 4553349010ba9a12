package io.pinshard.loader;

import io.pinshard.loader.augment.CropResizer;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.LoaderState;
import io.pinshard.loader.options.RingOptions;
import io.pinshard.loader.options.SamplingOptions;
import io.pinshard.loader.ring.BatchRing;
import io.pinshard.loader.ring.BatchRingDescriptor;
import io.pinshard.loader.sample.ElasticSplit;
import io.pinshard.loader.sample.EpochPlan;
import io.pinshard.loader.sample.QuasiRandomInterleave;
import io.pinshard.loader.work.LoaderControl;
import io.pinshard.loader.work.LoaderRun;
import io.pinshard.loader.work.LoaderWorker;
import io.pinshard.loader.work.SampleProcessor;
import io.pinshard.loader.work.ShardPrefetcher;
import io.pinshard.datawait.DataWaitMonitor;
import io.pinshard.datawait.StepLogWriter;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.agrona.CloseHelper;

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
 * given seed whatever the number of workers and their scheduling (see {@link io.pinshard.loader.sample.EpochPlan} for the order
 * and the distributed split). One consumer thread iterates an epoch; batches may be released from any
 * thread (see {@link io.pinshard.loader.ring.Batch}). {@link #close()} stops every thread and frees all native memory.
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
    private final EpochPlan plan;
    private final BatchRing ring;
    private final SampleProcessor[] processors;
    private final RecordView[] views;
    private final DataWaitMonitor dataWait;
    /** The step log ({@code PINSHARD_STEP_LOG}), or null. */
    private final StepLogWriter stepLog;
    private final LoaderRun run;
    /** The state the epochs, workers and prefetcher share; its monitor orders epoch starts, stops and close. */
    private final LoaderControl control;
    private final Epoch[] epochs;
    /** For a dataset whose source fetches shards (else null): fetches them ahead of the workers within its limit. */
    private final ShardPrefetcher prefetcher;
    /** Registered with {@link LoaderEvents} from open to close. */
    private final Supplier<LoaderSnapshot> snapshots = this::snapshot;

    private Loader(Dataset dataset, LoaderOptions asked) {
        this.dataset = dataset;
        // The workers' plan and the prefetcher's must agree: both see the interleave chosen here.
        LoaderOptions options = asked.withSampling(
            QuasiRandomInterleave.resolve(asked.sampling(), dataset.size(), dataset.manifest().bytes()));
        this.options = options;
        this.name = "pinshard-loader-" + IDS.incrementAndGet();
        long[] firstRecord = new long[dataset.shardCount() + 1];
        for (int s = 0; s <= dataset.shardCount(); s++) {
            firstRecord[s] = s < dataset.shardCount() ? dataset.firstRecordOf(s) : dataset.size();
        }
        SamplingOptions sampling = options.sampling();
        RingOptions ringOptions = options.ring();
        this.plan = new EpochPlan(dataset.size(), firstRecord, sampling);
        // Before anything is made: random order over a dataset larger than its cache (a local one has no limit).
        ShardPrefetcher.check(dataset, sampling);
        // A closed dataset is refused here, naming it. Shapes, codecs and channel counts need no walk over the
        // records: Dataset.open checked every entry, and each read checks its entry again.
        dataset.acquire();
        dataset.release();
        options.augment().resampler().effective(); // VECTOR where it cannot run fails here, before any thread or memory
        // OpenCV's natives (about a CPU second) load only when a crop or a decode first needs them: OpenCvRuntime.
        this.run = new LoaderRun(plan);
        this.control = new LoaderControl(name, run, ringOptions.workers());
        this.ring = new BatchRing(name, ringOptions, sampling.batchSize(), options.augment());
        this.processors = new SampleProcessor[ringOptions.workers()];
        this.views = new RecordView[ringOptions.workers()];
        try {
            for (int w = 0; w < processors.length; w++) {
                processors[w] = SampleProcessor.of(options, dataset);
                views[w] = new RecordView();
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
        this.dataWait = new DataWaitMonitor("host batches from " + name,
            "Try more workers (now " + ringOptions.workers() + "), raw instead of jpeg/lz4 shards, a smaller stored "
                + "image size, or a deeper prefetch (now " + ringOptions.prefetch() + ").",
            options.policy().dataWaitWarnFraction(), options.policy().dataWaitWindow(), 1);
        dataWait.dataset(dataset.location().toString());
        this.stepLog = StepLogWriter.fromEnvironment(sampling.rank(), dataset.location().toString());
        dataWait.stepLog(stepLog);
        this.epochs = new Epoch[] {
            new Epoch(control, run, ring, dataset, sampling, dataWait),
            new Epoch(control, run, ring, dataset, sampling, dataWait)};
        this.prefetcher = ShardPrefetcher.forDataset(control, dataset, sampling, ringOptions.prefetch(), firstRecord);
        if (prefetcher != null) {
            control.followedBy(prefetcher.thread());
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
        LoaderEvents.opened(loader.snapshots);
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

    /** Ring slots (= {@link io.pinshard.loader.options.RingOptions#prefetch()}). */
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
    public int currentEpoch() {
        return control.currentEpoch();
    }

    /** For metrics: batches of that epoch handed out so far (counting those before a resume). */
    public long batchInEpoch() {
        return control.batchInEpoch();
    }

    /** For metrics: the figures at this instant, or null once closed. */
    public LoaderSnapshot snapshot() {
        try {
            return new LoaderSnapshot(name, stats(), ringOccupied(), control.currentEpoch(), control.batchInEpoch(),
                ring.slots(), options.ring().workers());
        } catch (IllegalStateException closed) {
            return null;
        }
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
     * (at most {@link io.pinshard.loader.options.LoaderState#MAX_SEGMENTS}); the next epoch is a plain one on the new world. Full rules:
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
        if (state.seed() != options.sampling().seed()) {
            throw new IllegalArgumentException("state " + state + " was saved with seed " + state.seed()
                + ", this loader's is " + options.sampling().seed() + ": the epoch orders differ");
        }
        ElasticSplit split = ElasticSplit.resume(state, dataset.size(), options.sampling());
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
    private Epoch start(int epoch, long startBatch, ElasticSplit elastic) {
        synchronized (control) {
            return startLocked(epoch, startBatch, elastic);
        }
    }

    private Epoch startLocked(int epoch, long startBatch, ElasticSplit elastic) {
        if (control.closed()) {
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
            Epoch previous = epochs[(int) (control.starts() & 1)];
            int segment;
            if (elastic == null && continues(previous, epoch, startBatch)) {
                segment = previous.segment() + 1; // its first batches are probably filled already
                run.adopt(segment);
            } else {
                control.stopRun(); // discards what the workers filled ahead
                if (elastic == null) {
                    plan.prepare(0, epoch);
                } else {
                    plan.prepare(0, epoch, elastic);
                }
                ring.reset();
                startWorkers();
                control.startRun(epoch, startBatch, elastic);
                segment = 0;
            }
            control.epochStarted(epoch, run.firstBatch(segment));
            control.wakeWorkers();
            long start = control.starts() + 1;
            Epoch next = epochs[(int) (start & 1)].open(start, segment);
            control.started(start);
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
        return control.running() && control.starts() > 0 && !run.stopping() && !run.failed() && startBatch == 0
            && current.finished() && current.epoch() < Integer.MAX_VALUE && epoch == current.epoch() + 1
            && run.hasSegment(current.segment() + 1);
    }

    /** Starts the worker threads at the first epoch; they live until {@link #close()}. */
    private void startWorkers() {
        if (control.workersStarted()) {
            return;
        }
        Thread[] started = new Thread[processors.length];
        for (int w = 0; w < processors.length; w++) {
            LoaderWorker worker = new LoaderWorker(w, dataset, options, plan, ring, processors[w], views[w], run, control);
            started[w] = new Thread(worker, name + "-worker-" + w);
            started[w].setDaemon(true);
        }
        control.workersStarted(started);
        for (Thread thread : started) {
            thread.start();
        }
    }

    /** Samples the workers have written so far (tests: whether they filled ahead). */
    public long samplesFilled() {
        if (!ring.enter()) {
            throw new IllegalStateException(name + " is closed");
        }
        try {
            return ring.workerCounterSum(BatchRingDescriptor.WORKER_SAMPLES_OFFSET);
        } finally {
            ring.exit();
        }
    }

    /**
     * Whether this JVM's vector crop kernel is still being compiled: the workers crop with its scalar twin until it is
     * (the same pixels, slower), so a measurement of the loader's steady rate starts after this turns false.
     */
    public static boolean cropKernelWarmingUp() {
        return CropResizer.kernelWarmingUp();
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
            long nanos = control.runNanos();
            long images = control.images();
            double seconds = nanos / 1e9;
            long imageBytes = options.augment().imageBytes();
            double perSecond = seconds > 0 ? 1 / seconds : 0;
            double busy = nanos > 0 ? 100.0 * ring.workerCounterSum(BatchRingDescriptor.WORKER_BUSY_NANOS_OFFSET)
                / ((double) nanos * options.ring().workers()) : 0;
            return new LoaderStats(images, control.batches(), seconds, images * perSecond, images * imageBytes / 1e6 * perSecond,
                ring.workerCounterSum(BatchRingDescriptor.WORKER_PAYLOAD_BYTES_OFFSET) / 1e6 * perSecond,
                dataWait.dataWaitPercent(), Math.min(100, busy),
                control.skipped(),
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
    public void close() {
        synchronized (control) {
            if (!control.close()) {
                return;
            }
            LoaderEvents.closed(snapshots);
            if (prefetcher != null) {
                prefetcher.stopPlanning(); // no new fetch; those in flight finish for the workers waiting on them
            }
            control.terminate(); // stops the run and joins the workers
            if (prefetcher != null) {
                prefetcher.stop();
            }
            try {
                CloseHelper.closeAll(processors);
            } finally {
                CloseHelper.closeAll(ring, stepLog);
            }
        }
    }
}
