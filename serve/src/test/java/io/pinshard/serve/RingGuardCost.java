package io.pinshard.serve;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.format.Codec;
import io.pinshard.memory.BatchMemoryAllocator;
import io.pinshard.memory.NativeRegion;
import io.pinshard.reader.Dataset;
import io.pinshard.loader.ring.Batch;
import io.pinshard.loader.Epoch;
import io.pinshard.loader.Loader;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.Resampler;
import io.pinshard.loader.options.SampleOrder;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Measures (prints, asserts nothing) what the guarded ring writes cost serve's loader: the loader over a ring file
 * as pinshard serve runs it (OpenCV's output staged privately and copied into the slot with a guarded copy) next to
 * the same ring with OpenCV writing the slots directly (what serve did before), in alternated rounds of the same
 * run (after a warm-up, the order swapped every round), for the OpenCV resampler (every sample staged) and auto (the
 * vector kernel, which writes guarded anyway, takes the boxes it can). Off by default; run on a quiet machine with
 * {@code mvn -B -o -Dpinshard.skipPhotos=true -pl serve -am test -Dtest=RingGuardCost
 * -Dsurefire.failIfNoSpecifiedTests=false -Dpinshard.measureRingGuard=true [-Dpinshard.ringGuardSeconds=6]}.
 */
class RingGuardCost {
    private static final int RECORDS = 256;
    private static final int HEIGHT = 256;
    private static final int WIDTH = 320;

    @TempDir
    Path temp;

    @Test
    void printGuardedAgainstDirectRingThroughput() throws Exception {
        assumeTrue(Boolean.getBoolean("pinshard.measureRingGuard"), "set -Dpinshard.measureRingGuard=true to measure");
        double seconds = Double.parseDouble(System.getProperty("pinshard.ringGuardSeconds", "6"));
        int rounds = Integer.getInteger("pinshard.ringGuardRounds", 3);
        Path data = writeDataset(temp.resolve("data"));
        try (Dataset dataset = Dataset.open(data)) {
            imagesPerSecond(dataset, "opencv", true, seconds / 2, 0); // warms the JIT up for both
            for (String resampler : List.of("opencv", "auto")) {
                List<Double> ratios = new ArrayList<>();
                List<Double> cpuRatios = new ArrayList<>();
                for (int round = 1; round <= rounds; round++) {
                    boolean guardedFirst = round % 2 == 0; // alternated: neither gains from going second
                    Throughput first = imagesPerSecond(dataset, resampler, guardedFirst, seconds, round);
                    Throughput second = imagesPerSecond(dataset, resampler, !guardedFirst, seconds, round);
                    Throughput direct = guardedFirst ? second : first;
                    Throughput guarded = guardedFirst ? first : second;
                    ratios.add(guarded.imagesPerSecond() / direct.imagesPerSecond());
                    cpuRatios.add(guarded.workerCpuMicrosPerImage() / direct.workerCpuMicrosPerImage());
                    System.out.printf(Locale.ROOT, "resampler %s round %d: direct %.0f images/s (%.1f worker CPU us per "
                        + "image), guarded %.0f images/s (%.1f us); guarded / direct: throughput %.3f, CPU per image "
                        + "%.3f%n", resampler, round, direct.imagesPerSecond(), direct.workerCpuMicrosPerImage(),
                        guarded.imagesPerSecond(), guarded.workerCpuMicrosPerImage(), ratios.get(round - 1),
                        cpuRatios.get(round - 1));
                }
                ratios.sort(null);
                cpuRatios.sort(null);
                System.out.printf(Locale.ROOT, "resampler %s: median guarded / direct over %d rounds: throughput %.3f,"
                    + " worker CPU per image %.3f%n", resampler, rounds, ratios.get(ratios.size() / 2),
                    cpuRatios.get(cpuRatios.size() / 2));
            }
        }
    }

    /** Images per second, and the CPU time the loader's workers spent per image (what contention hurts least). */
    private record Throughput(double imagesPerSecond, double workerCpuMicrosPerImage) {
    }

    /** The loader over a fresh ring file in /dev/shm for {@code seconds}, batches released as they arrive. */
    private Throughput imagesPerSecond(Dataset dataset, String resampler, boolean guarded, double seconds, int round) {
        Path path = Path.of("/dev/shm", "pinshard-guard-cost-" + ProcessHandle.current().pid() + ".ring");
        LoaderOptions base = LoaderOptions.builder().batchSize(64).crop(224).workers(2).prefetch(4)
            .order(SampleOrder.RANDOM).seed(round).resampler(Resampler.parse(resampler)).dataWaitWarning(1e9, 50)
            .build();
        try (RingFile ring = RingFile.prepare(path, base.ring().prefetch());
             Loader loader = Loader.open(dataset, base.toBuilder().allocator(guarded ? ring : new DirectWrites(ring))
                 .build())) {
            long images = 0;
            long started = 0;
            long cpuAtStart = 0;
            long end = Long.MAX_VALUE;
            for (int epoch = 0; System.nanoTime() < end; epoch++) {
                try (Epoch batches = loader.epoch(epoch)) {
                    for (Batch batch : batches) {
                        try (batch) {
                            if (started == 0) { // from the first batch: worker start-up is not the cost measured
                                started = System.nanoTime();
                                cpuAtStart = workerCpuNanos(loader);
                                end = started + (long) (seconds * TimeUnit.SECONDS.toNanos(1));
                            } else {
                                images += batch.size();
                            }
                        }
                        if (System.nanoTime() >= end) {
                            break;
                        }
                    }
                }
            }
            double elapsed = (System.nanoTime() - started) / 1e9;
            return new Throughput(images / elapsed, (workerCpuNanos(loader) - cpuAtStart) / 1e3 / images);
        }
    }

    private static long workerCpuNanos(Loader loader) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long total = 0;
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().startsWith(loader.name() + "-worker-")) {
                total += Math.max(0, threads.getThreadCpuTime(thread.getId()));
            }
        }
        return total;
    }

    /** The ring as an allocator that says its memory is private: the loader lets OpenCV write its slots directly. */
    private record DirectWrites(RingFile ring) implements BatchMemoryAllocator {
        @Override
        public NativeRegion allocate(long length, int alignment) {
            return ring.allocate(length, alignment);
        }

        @Override
        public String name() {
            return "ring, direct writes";
        }
    }

    private static Path writeDataset(Path directory) throws Exception {
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withClasses(List.of("a", "b"));
        byte[] pixels = new byte[HEIGHT * WIDTH * 3];
        try (DatasetWriter writer = new DatasetWriter(directory, options)) {
            for (int r = 0; r < RECORDS; r++) {
                for (int i = 0; i < pixels.length; i++) {
                    pixels[i] = (byte) (i * 7 + r * 13 + (i / (WIDTH * 3)) * 5);
                }
                writer.appendPixels(new UnsafeBuffer(pixels), 0, HEIGHT, WIDTH, 3, r % 2, "img/" + r, Codec.RAW);
            }
            writer.finish();
        }
        Files.createDirectories(directory);
        return directory;
    }
}
