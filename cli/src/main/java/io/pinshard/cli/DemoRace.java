package io.pinshard.cli;

import io.pinshard.reader.Dataset;
import io.pinshard.loader.ring.Batch;
import io.pinshard.loader.Epoch;
import io.pinshard.memory.HeapCounter;
import io.pinshard.loader.Loader;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.LoaderStats;
import io.pinshard.loader.options.SampleOrder;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * The demo's contestants, measured the same way with the same number of threads: loader-only images/s over a
 * fixed time, heap bytes per batch from the JVM's per-thread allocation counters (every live thread, so loader
 * workers count), and data-wait against a training step of {@code batch / gpuImagesPerSecond} seconds (for
 * pinshard a simulated one, a sleep, as a GPU step leaves the CPU free).
 */
final class DemoRace {
    /** What one loader achieved. */
    record Figures(String name, long images, double imagesPerSecond, double dataWaitPercent, double heapBytesPerBatch,
                   String note) {
    }

    private final int batch;
    private final int crop;
    private final double seconds;
    private final double gpuImagesPerSecond;
    private final PrintStream log;

    DemoRace(int batch, int crop, double seconds, double gpuImagesPerSecond, PrintStream log) {
        this.batch = batch;
        this.crop = crop;
        this.seconds = seconds;
        this.gpuImagesPerSecond = gpuImagesPerSecond;
        this.log = log;
    }

    /**
     * A loader over JPEG files on {@code threads} threads (see {@link JpegFileLoader}). Its trainer would wait
     * whenever the loader is slower than the GPU, so data-wait is {@code 1 - loader rate / GPU rate} (at least 0):
     * computed from the measured images/s, where pinshard's is measured under a simulated step.
     */
    Figures files(String name, List<Path> files, int threads) throws IOException {
        log.printf(Locale.ROOT, "demo: %s, %d thread(s), for %.1f s ...%n", name, threads, seconds);
        JpegFileLoader loader = new JpegFileLoader(files, crop, batch);
        loader.run(threads, Math.min(0.5, seconds / 4)); // class loading, page cache, first decoder set-up
        JpegFileLoader.Run run = loader.run(threads, seconds);
        double perSecond = run.images() / run.seconds();
        return new Figures(name + ", " + threads + " thread(s)", run.images(), perSecond,
            100 * Math.max(0, 1 - perSecond / gpuImagesPerSecond), (double) run.heapBytes() / run.images() * batch,
            run.images() < batch ? "measured on " + run.images() + " images, scaled to a batch" : "");
    }

    /** pinshard's loader: loader-only throughput and heap first, then data-wait under the simulated step. */
    Figures pinshard(Path directory, int workers, String codec) {
        try (Dataset dataset = Dataset.open(directory)) {
            int size = (int) Math.min(batch, dataset.size());
            LoaderOptions options = LoaderOptions.builder().batchSize(size).crop(crop).workers(workers)
                .order(SampleOrder.RANDOM).seed(1).dropLast(true).build();
            // Loader-only phase: the trainer does nothing, so it always waits; the data-wait warning would be noise.
            LoaderOptions loaderOnly = options.toBuilder().dataWaitWarning(1e9, Integer.MAX_VALUE).build();
            log.printf(Locale.ROOT, "demo: pinshard loader (%s shards, %d workers) for %.1f s, then %.1f s of simulated "
                + "training ...%n", codec, workers, seconds, seconds / 2);
            long images;
            double perSecond;
            double heapPerBatch;
            try (Loader loader = Loader.open(dataset, loaderOnly)) {
                runEpoch(loader, 0, 0); // warm-up: JIT, page cache, OpenCV
                long heapBefore = HeapCounter.allThreadsAllocatedBytes();
                long start = System.nanoTime();
                long deadline = start + (long) (seconds * 1e9);
                long batches = 0;
                for (int epoch = 1; System.nanoTime() < deadline; epoch++) {
                    batches += runEpoch(loader, epoch, 0);
                }
                double elapsed = (System.nanoTime() - start) / 1e9;
                heapPerBatch = (double) (HeapCounter.allThreadsAllocatedBytes() - heapBefore) / batches;
                images = batches * size;
                perSecond = images / elapsed;
            }
            double dataWait;
            long stepNanos = (long) (size / gpuImagesPerSecond * 1e9);
            try (Loader loader = Loader.open(dataset, options)) {
                long deadline = System.nanoTime() + (long) (seconds / 2 * 1e9);
                for (int epoch = 0; System.nanoTime() < deadline; epoch++) {
                    runEpoch(loader, epoch, stepNanos);
                }
                LoaderStats stats = loader.stats();
                dataWait = stats.dataWaitPercent();
            }
            return new Figures("pinshard: " + codec + " shards, loader with " + workers + " worker thread(s)", images,
                perSecond, dataWait, heapPerBatch, "");
        }
    }

    /** One epoch; each batch is held for {@code stepNanos} like a training step would. Returns the batches. */
    private static long runEpoch(Loader loader, int number, long stepNanos) {
        long batches = 0;
        try (Epoch epoch = loader.epoch(number)) {
            while (epoch.hasNext()) {
                try (Batch batch = epoch.next()) {
                    if (stepNanos > 0) {
                        LockSupport.parkNanos(stepNanos);
                    }
                    batches++;
                }
            }
        }
        return batches;
    }

    /**
     * The table and the two speed-ups a sceptic can check: pinshard's raw shards against the seed's "before"
     * (full-size JPEG files), and pinshard's jpeg shards against the very same 320-px JPEGs as files (the "after"
     * without shards: same bytes, same decoder, same threads; only the storage and the loader differ).
     */
    void print(PrintWriter out, int threads, Figures before, Figures after, Figures jpegShards, Figures rawShards) {
        out.printf(Locale.ROOT, "%n  loader race: %d thread(s) on every side, batch %d, crop %d, random-resized-crop + flip,"
            + " JPEGs decoded by libjpeg-turbo (OpenCV) everywhere; data-wait against a GPU at %,.0f images/s%n",
            threads, batch, crop, gpuImagesPerSecond);
        out.printf(Locale.ROOT, "  %-72s %12s %10s %18s%n", "", "images/s", "data-wait", "heap bytes/batch");
        for (Figures f : List.of(before, after, jpegShards, rawShards)) {
            out.printf(Locale.ROOT, "  %-72s %,12.1f %9.1f%% %18s%s%n", f.name(), f.imagesPerSecond(), f.dataWaitPercent(),
                Units.bytes((long) f.heapBytesPerBatch()), f.note().isEmpty() ? "" : "   (" + f.note() + ")");
        }
        out.printf(Locale.ROOT, "  speed-up   %s with pinshard raw shards over %s (the seed's before)%n",
            ratio(rawShards, before), before.name().replaceFirst("^before: ", "").replaceFirst(", \\d+ thread\\(s\\)$", ""));
        out.printf(Locale.ROOT, "  speed-up   %s with pinshard jpeg shards over the same 320-px JPEGs as files (the seed's"
            + " after: same bytes, decoder and threads)%n", ratio(jpegShards, after));
        out.printf(Locale.ROOT, "             file baselines' data-wait is 1 - images/s / GPU rate; pinshard's is measured"
            + " under a simulated step%n%n");
        out.flush();
    }

    /** "12.3x" (one decimal under 10, else whole). */
    static String ratio(Figures faster, Figures slower) {
        double r = faster.imagesPerSecond() / slower.imagesPerSecond();
        return String.format(Locale.ROOT, r < 10 ? "%.1fx" : "%,.0fx", r);
    }
}
