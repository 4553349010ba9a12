package io.pinshard.cli;

import io.pinshard.cuda.augment.AugmentSpec;
import io.pinshard.cuda.device.DeviceBackend;
import io.pinshard.cuda.device.DeviceBackends;
import io.pinshard.cuda.pipeline.DeviceBatch;
import io.pinshard.cuda.pipeline.DeviceBatchPipeline;
import io.pinshard.cuda.pipeline.DeviceBatchStream;
import io.pinshard.loader.LoaderBatchSource;
import io.pinshard.cuda.pipeline.PipelineOptions;
import io.pinshard.cuda.pipeline.PipelineStats;
import io.pinshard.format.Json;
import io.pinshard.format.Printable;
import io.pinshard.reader.CrcCheck;
import io.pinshard.reader.Dataset;
import io.pinshard.loader.ring.Batch;
import io.pinshard.datawait.DataWaitMonitor;
import io.pinshard.loader.Epoch;
import io.pinshard.memory.HeapCounter;
import io.pinshard.loader.Loader;
import io.pinshard.loader.options.AugmentOptions;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.SampleOrder;
import io.pinshard.loader.options.SamplingOptions;
import io.pinshard.loader.LoaderStats;
import io.pinshard.s3.S3Location;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code pinshard bench DIR}: loader-only throughput (the input pipeline measured on its own, with a
 * trainer that does nothing but take and release batches), plus the heap bytes per batch. With no training
 * step the trainer waits for data nearly all the time, so the table leaves data-wait out and, given
 * {@code --step-ms}, says instead whether the loader keeps up with that step.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = {"Measure loader throughput alone: images/s, MB/s, ms per batch, heap bytes per batch.",
        "bench runs no training step, so it cannot measure data-wait (--json's data_wait_pct is the do-nothing"
            + " trainer's, ~100 %% by design): give --step-ms, your training step's time per batch, to learn whether"
            + " the loader keeps up with it and the data-wait to expect."})
final class BenchCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DATASET", description = "Dataset directory (holds manifest.json), or "
        + "s3://bucket/prefix (streamed through the node's shard cache: see --cache-dir, --cache-limit).")
    String directory;

    @CommandLine.Mixin
    DatasetLocationMixin location = new DatasetLocationMixin();
    @Parameters(index = "1..*", arity = "0..*", paramLabel = "MORE", description = "With --sweep: more dataset directories.")
    List<Path> moreDirectories = new ArrayList<>();

    @CommandLine.Mixin
    LoaderOptionsMixin loaderOptions;

    @Option(names = "--seconds", defaultValue = "10", description = "Measured seconds (default ${DEFAULT-VALUE}).")
    double seconds;

    @Option(names = "--warmup", paramLabel = "SECONDS|auto", defaultValue = BenchWarmup.AUTO,
        description = "Warm-up before measuring: seconds, or auto (default): at least 2 s, then until heap per batch"
            + " has settled (the JIT has compiled the crop kernels), at most 30 s; a short fixed warm-up makes"
            + " heap_bytes_per_batch include the interpreter's allocations.")
    String warmup;

    @Option(names = "--step-ms", paramLabel = "MS", description = "Milliseconds your training step takes per batch:"
        + " bench then says whether the loader keeps up and the data-wait to expect (measured with the loader alone:"
        + " a trainer that uses the same cores leaves it less).")
    Double stepMs;

    @Option(names = "--json", description = "Print one JSON object instead of a table.")
    boolean json;

    @Option(names = "--device", description = "Also move every batch to a device: host, cuda or auto (cuda when a GPU"
        + " is usable). Loader slots then come from the backend (page-locked on cuda). Default: loader only.")
    String device;

    @Option(names = "--gpu-augment", description = "With --device: colour jitter + normalisation to NCHW float32 on the"
        + " device (the CPU reference on host).")
    boolean gpuAugment;

    @CommandLine.Mixin
    BenchSweepOptions sweep;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        LoaderOptions.Builder builder = loaderOptions.builder()
            // No trainer here: data wait is ~100 % by design, so the guard's warning would only add noise.
            .dataWaitWarning(1e9, 50);
        BenchWarmup.parse(warmup);
        if (stepMs != null && !(stepMs > 0)) {
            throw new IllegalArgumentException("--step-ms must be > 0: " + stepMs);
        }
        if (gpuAugment && device == null) {
            throw new IllegalArgumentException("--gpu-augment needs --device host|cuda|auto");
        }
        DeviceBackend backend = null;
        if (device != null) {
            try {
                backend = DeviceBackends.open(device);
            } catch (IllegalArgumentException | IllegalStateException e) {
                // No usable GPU where --device cuda asked for one is the machine's failure; any other refusal the
                // command line's (auto, host, a typo).
                throw device.equalsIgnoreCase("cuda") ? new IllegalStateException(e.getMessage(), e)
                    : new IllegalArgumentException(e.getMessage(), e);
            }
            builder.allocator(backend.hostAllocator());
        }
        LoaderOptions options = builder.build();
        String sweepProblem = sweep.problem(backend != null, moreDirectories);
        if (sweepProblem == null && sweep.sweep && S3Location.isRemote(directory)) {
            sweepProblem = "--sweep measures local directories only, not " + directory;
        }
        if (sweepProblem != null || sweep.sweep) {
            return runSweep(sweepProblem, backend, options);
        }
        Map<String, Object> result;
        try (Dataset dataset = location.open(directory); Loader loader = Loader.open(dataset, options)) {
            if (backend == null) {
                result = measure(dataset, loader, options, null);
            } else {
                try (DeviceBatchPipeline pipeline = new DeviceBatchPipeline(backend, devicePipeline(options))) {
                    result = measure(dataset, loader, options, pipeline);
                }
            }
        } finally {
            if (backend != null) {
                backend.close();
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(new String(Json.compact(result), StandardCharsets.UTF_8));
        } else {
            printTable(out, result);
        }
        out.flush();
        return 0;
    }

    /** Keys of {@code --json} that the table leaves out: with no training step they read ~100 % whatever the loader does. */
    private static final List<String> NOT_IN_TABLE = List.of("data_wait_pct", "device_data_wait_pct");

    private void printTable(PrintWriter out, Map<String, Object> result) {
        result.forEach((key, value) -> {
            if (!NOT_IN_TABLE.contains(key)) {
                out.printf(Locale.ROOT, "%-22s %s%n", key,
                    value instanceof Double d ? String.format(Locale.ROOT, "%.1f", d) : Printable.escape(String.valueOf(value)));
            }
        });
        if (!(Boolean) result.get("heap_settled")) {
            out.printf(Locale.ROOT, "note: heap_bytes_per_batch is above %.0f B, the loader's steady state; it may still"
                + " include JIT warm-up (%.1f s of warm-up%s; --warmup auto waits until it settles) or allocations of"
                + " this run's path (a source that is not a local raw dataset, --json's interpreter)%n",
                BenchWarmup.SETTLED_BYTES_PER_BATCH, (Double) result.get("warmup_s"),
                BenchWarmup.parse(warmup) == null ? ", auto stopped at its cap" : "");
        }
        double loaderMs = (Double) result.get("ms_per_batch");
        if (stepMs == null) {
            out.println("data-wait: not measured (bench runs no training step); --step-ms MS, your step's time per"
                + " batch, says whether the loader keeps up");
        } else if (loaderMs <= stepMs) {
            out.printf(Locale.ROOT, "keeps up: the loader fills a batch in %.1f ms, your step takes %.1f ms"
                + " (%.1fx headroom); expect ~0 %% data-wait if training leaves the loader its cores%n",
                loaderMs, stepMs, stepMs / loaderMs);
        } else {
            out.printf(Locale.ROOT, "does not keep up: the loader fills a batch in %.1f ms, your step takes %.1f ms;"
                + " expect ~%.0f %% data-wait: more --workers (now %s) where cores are free, or raw/lz4 shards instead"
                + " of jpeg%n", loaderMs, stepMs, (Double) result.get("expected_data_wait_pct"),
                result.get("workers"));
        }
    }

    /**
     * The device ring's shape is the loader's, taken from the built options (never typed again): its batch size, its
     * square crop from the augment group, and with --gpu-augment a jitter seeded as the loader is.
     */
    private PipelineOptions devicePipeline(LoaderOptions options) {
        SamplingOptions sampling = options.sampling();
        int crop = options.augment().crop();
        return new PipelineOptions(sampling.batchSize(), crop, crop, 4,
            gpuAugment ? AugmentSpec.jitter(0.4f, 0.4f, 0.4f, sampling.seed()) : null);
    }

    private int runSweep(String problem, DeviceBackend backend, LoaderOptions options) {
        if (backend != null) {
            backend.close();
        }
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        List<Path> directories = new ArrayList<>(List.of(Path.of(directory)));
        directories.addAll(moreDirectories);
        try {
            return new BenchSweep(this, sweep, spec.commandLine().getOut(), Runtime.getRuntime().availableProcessors())
                .run(directories, options);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** CPU time of this whole process in nanoseconds, or -1 where the JVM does not say. */
    private static long processCpuNanos() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : -1;
    }

    /** Warm-up epochs, then whole epochs until the measured time is up; heap counted over the measured epochs. */
    Map<String, Object> measure(Dataset dataset, Loader loader, LoaderOptions options,
                                        DeviceBatchPipeline pipeline) {
        DeviceLane lane = pipeline == null ? null : new DeviceLane(loader, pipeline);
        int[] next = {0};
        BenchWarmup.Outcome warm = BenchWarmup.run(BenchWarmup.parse(warmup), loader,
            () -> runEpoch(loader, next[0]++, lane));
        int epoch = next[0];
        PipelineStats deviceBefore = lane == null ? null : lane.stream.stats();
        LoaderStats before = loader.stats();
        long fetchedBefore = dataset.bytesFetched();
        int measuredFrom = epoch;
        long cpuBefore = processCpuNanos(); // before the heap mark: its first call makes the MXBean (~300 KB)
        long consumerHeapBefore = HeapCounter.currentThreadAllocatedBytes();
        long measureEnd = System.nanoTime() + (long) (seconds * 1e9);
        do {
            runEpoch(loader, epoch++, lane);
        } while (System.nanoTime() < measureEnd);
        long consumerHeap = HeapCounter.currentThreadAllocatedBytes() - consumerHeapBefore;
        long cpu = processCpuNanos() - cpuBefore;
        LoaderStats after = loader.stats();
        double elapsed = after.seconds() - before.seconds();
        long images = after.images() - before.images();
        long batches = after.batches() - before.batches();
        long heap = after.workerHeapBytes() - before.workerHeapBytes() + consumerHeap;
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("dataset", dataset.location());
        result.put("records", dataset.size());
        result.put("images_per_s", images / elapsed);
        // The whole process's CPU over the measured epochs (workers, consumer, JIT and GC): what a trainer would lend.
        result.put("cpu_s_per_1000_images", images > 0 && cpu >= 0 ? cpu / 1e6 / images : 0.0);
        result.put("mb_per_s", images * (double) options.augment().imageBytes() / 1e6 / elapsed);
        result.put("source_mb_per_s", (after.sourceMegabytesPerSecond() * after.seconds()
            - before.sourceMegabytesPerSecond() * before.seconds()) / elapsed);
        result.put("data_wait_pct", after.dataWaitPercent());
        result.put("worker_busy_pct", (after.workerBusyPercent() * after.seconds()
            - before.workerBusyPercent() * before.seconds()) / elapsed);
        double msPerBatch = batches > 0 ? elapsed * 1e3 / batches : 0.0;
        result.put("ms_per_batch", msPerBatch);
        if (stepMs != null) {
            result.put("step_ms", stepMs);
            // The trainer steps every max(step, batch) ms and waits for the part the loader takes longer.
            result.put("expected_data_wait_pct", msPerBatch <= stepMs ? 0.0 : 100.0 * (msPerBatch - stepMs) / msPerBatch);
        }
        result.put("heap_bytes_per_batch", batches > 0 ? (double) heap / batches : 0.0);
        result.put("warmup_s", warm.seconds());
        // Settled means what the figure beside it says: at most the settled mark per batch over the measured epochs
        // (a warm-up that settled does not make 67 KB per batch "settled").
        result.put("heap_settled", batches > 0 && (double) heap / batches <= BenchWarmup.SETTLED_BYTES_PER_BATCH);
        SamplingOptions sampling = options.sampling();
        AugmentOptions augment = options.augment();
        result.put("workers", options.ring().workers());
        result.put("batch", sampling.batchSize());
        result.put("crop", augment.crop());
        result.put("prefetch", options.ring().prefetch());
        result.put("order", sampling.order().label());
        if (sampling.order() == SampleOrder.QUASI_RANDOM) {
            LoaderOptions chosen = loader.options(); // the interleave Loader.open chose
            result.put("window", chosen.sampling().quasiRandomWindow());
            result.put("interleave", chosen.sampling().quasiRandomInterleave());
        }
        result.put("mode", augment.mode().name().toLowerCase(Locale.ROOT));
        result.put("seconds", elapsed);
        result.put("epochs", epoch);
        result.put("images", images);
        result.put("batches", batches);
        result.put("skipped_records", after.skippedRecords());
        if (dataset.fetchConcurrency() > 0) { // shards fetched from a store: what fetching them took
            result.put("cache_limit_bytes", dataset.cacheLimitBytes());
            result.put("dataset_bytes", dataset.manifest().bytes());
            result.put("bytes_fetched", dataset.bytesFetched());
            result.put("bytes_fetched_measured", dataset.bytesFetched() - fetchedBefore);
            result.put("measured_epochs", epoch - measuredFrom);
        }
        result.put("allocator", options.ring().allocator().name());
        CrcCheck crcCheck = options.policy().crcCheck();
        result.put("crc_check", crcCheck.label() + " (" + checkedCodecs(crcCheck) + ")");
        result.put("resampler", augment.resampler().effective().name().toLowerCase(Locale.ROOT));
        if (lane != null) {
            PipelineStats deviceAfter = lane.stream.stats();
            long waited = deviceAfter.dataWaitNanos() - deviceBefore.dataWaitNanos();
            long total = waited + deviceAfter.stepNanos() - deviceBefore.stepNanos();
            result.put("device", pipeline.backend().name());
            result.put("device_augment", pipeline.options().augment() != null);
            result.put("device_data_wait_pct", total == 0 ? 0.0 : 100.0 * waited / total);
        }
        return result;
    }

    /** One epoch; with a device stream every batch also goes to the device, and the trainer waits until it is there. */
    private static void runEpoch(Loader loader, int epoch, DeviceLane lane) {
        if (lane != null) {
            try (Epoch batches = loader.epoch(epoch)) {
                lane.run(batches);
            }
            return;
        }
        try (Epoch batches = loader.epoch(epoch)) {
            while (batches.hasNext()) {
                try (Batch batch = batches.next()) {
                    // loader-only: the trainer takes the batch and gives it back
                }
            }
        }
    }

    /** The device side of the benchmark: one stream over all epochs, so nothing is allocated per epoch either. */
    private static final class DeviceLane {
        final DeviceBatchPipeline pipeline;
        final LoaderBatchSource source;
        final DeviceBatchStream stream;
        private boolean started;

        DeviceLane(Loader loader, DeviceBatchPipeline pipeline) {
            this.pipeline = pipeline;
            this.source = new LoaderBatchSource(loader, null);
            // No trainer here: the device guard's warning would only add noise, as for the loader's.
            this.stream = new DeviceBatchStream(source, pipeline,
                Math.min(pipeline.options().ringSize() - 1, loader.slots() - 1),
                new DataWaitMonitor("device batches", "", 1e9, 50, 0));
        }

        void run(Epoch epoch) {
            source.epoch(epoch);
            if (started) {
                stream.restart(source);
            }
            started = true;
            for (DeviceBatch batch = stream.next(); batch != null; batch = stream.next()) {
                batch.awaitReady();
                batch.close();
            }
            pipeline.awaitCopies(); // every loader batch back before the epoch ends
        }
    }

    /** Which codecs' payloads get their CRC32C checked under {@code mode}, for the report. */
    private static String checkedCodecs(CrcCheck mode) {
        StringBuilder codecs = new StringBuilder();
        for (io.pinshard.format.Codec codec : io.pinshard.format.Codec.values()) {
            if (mode.checks(codec)) {
                codecs.append(codecs.length() == 0 ? "" : ", ").append(codec.label());
            }
        }
        return codecs.length() == 0 ? "none checked" : codecs + " checked";
    }
}
