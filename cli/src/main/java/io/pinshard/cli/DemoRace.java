package io.pinshard.cli;

import io.pinshard.baseline.NaiveLoader;
import io.pinshard.baseline.inputs.SourceImage;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.loader.Batch;
import io.pinshard.reader.loader.Epoch;
import io.pinshard.memory.HeapCounter;
import io.pinshard.reader.loader.Loader;
import io.pinshard.reader.loader.LoaderOptions;
import io.pinshard.reader.loader.LoaderStats;
import io.pinshard.reader.loader.SampleOrder;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * The demo's two contestants, measured the same way: loader-only images/s over a fixed time, heap
 * bytes per batch from the JVM's per-thread allocation counters (every live thread, so loader workers
 * count), and data-wait against a simulated training step of {@code batch / gpuImagesPerSecond}
 * seconds (a sleep, as a GPU step leaves the CPU free).
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
     * The naive loader on one thread (a DataLoader with {@code num_workers=0}): it loads in the trainer's
     * thread, so the trainer waits for every sample and data-wait is load time / (load + step) time.
     */
    Figures naive(List<SourceImage> files) throws IOException {
        log.printf(Locale.ROOT, "demo: naive loader (javax.imageio, full-size files, 1 thread) for %.1f s ...%n", seconds);
        NaiveLoader loader = new NaiveLoader(files, crop, 1);
        byte[] heapBatch = new byte[batch * loader.sampleBytes()];
        int[] labels = new int[batch];
        loader.load(0, heapBatch, 0); // class loading and the first decoder set-up are not the steady state
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        long heapBefore = HeapCounter.allThreadsAllocatedBytes();
        long start = System.nanoTime();
        long count = 0;
        do {
            int slot = (int) (count % batch);
            labels[slot] = loader.load(loader.randomIndex(), heapBatch, slot);
            count++;
        } while (System.nanoTime() < deadline);
        double elapsed = (System.nanoTime() - start) / 1e9;
        long heap = HeapCounter.allThreadsAllocatedBytes() - heapBefore;
        double perImageLoad = elapsed / count;
        double perImageStep = 1 / gpuImagesPerSecond;
        return new Figures("naive: read + decode full-size file (javax.imageio) + crop, 1 thread", count,
            count / elapsed, 100 * perImageLoad / (perImageLoad + perImageStep), (double) heap / count * batch,
            count < batch ? "measured on " + count + " images, scaled to a batch" : "");
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

    void print(PrintWriter out, Figures naive, Figures pinshard) {
        out.printf(Locale.ROOT, "%n  loader race: batch %d, crop %d, random-resized-crop + flip; data-wait against a "
            + "simulated GPU step at %,.0f images/s%n", batch, crop, gpuImagesPerSecond);
        out.printf(Locale.ROOT, "  %-72s %12s %10s %18s%n", "", "images/s", "data-wait", "heap bytes/batch");
        for (Figures f : List.of(naive, pinshard)) {
            out.printf(Locale.ROOT, "  %-72s %,12.1f %9.1f%% %18s%s%n", f.name(), f.imagesPerSecond(), f.dataWaitPercent(),
                Units.bytes((long) f.heapBytesPerBatch()), f.note().isEmpty() ? "" : "   (" + f.note() + ")");
        }
        out.printf(Locale.ROOT, "  speed-up   %,.0fx more images/s with pinshard%n%n",
            pinshard.imagesPerSecond() / naive.imagesPerSecond());
        out.flush();
    }
}
