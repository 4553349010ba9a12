package io.pinshard.cli;

import static org.bytedeco.opencv.global.opencv_core.flip;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR_RGB;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imdecode;
import static org.bytedeco.opencv.global.opencv_imgproc.INTER_LINEAR;
import static org.bytedeco.opencv.global.opencv_imgproc.resize;

import io.pinshard.baseline.NaiveRandomResizedCrop;
import io.pinshard.jpeg.OpenCvRuntime;
import io.pinshard.memory.HeapCounter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.opencv.global.opencv_core;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Rect;
import org.bytedeco.opencv.opencv_core.Size;

/**
 * The demo's file baselines: a loader over JPEG files, as a DataLoader with {@code threads} workers over an
 * ImageFolder is, but in Java and with the same decoder as pinshard's jpeg shards (OpenCV's libjpeg-turbo). Each
 * thread, per sample: read the file, decode it whole to RGB, random-resized-crop (torchvision's box), bilinear
 * resize, flip half the time, into its own batch buffer. Pointed at full-size photos it is the seed's "before";
 * at the 320-px JPEGs the shards hold, its "after" without shards.
 */
final class JpegFileLoader {
    /** What a run achieved. */
    record Run(long images, double seconds, long heapBytes) {
    }

    private final List<Path> files;
    private final int crop;
    private final int batch;

    JpegFileLoader(List<Path> files, int crop, int batch) {
        if (files.isEmpty()) {
            throw new IllegalArgumentException("no JPEG files to load");
        }
        this.files = List.copyOf(files);
        this.crop = crop;
        this.batch = batch;
    }

    /**
     * Loads random samples on {@code threads} threads for {@code seconds}; heap counted by each thread on itself
     * (a finished thread's allocations drop out of the JVM's all-threads figure).
     */
    Run run(int threads, double seconds) throws IOException {
        OpenCvRuntime.ready(); // one decode per thread, as the loader's workers do
        AtomicLong images = new AtomicLong();
        AtomicLong heap = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long start = System.nanoTime();
        long deadline = start + (long) (seconds * 1e9);
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            long seed = t;
            workers[t] = new Thread(() -> {
                long heapBefore = HeapCounter.currentThreadAllocatedBytes();
                try {
                    images.addAndGet(loadUntil(deadline, new SplittableRandom(seed)));
                    heap.addAndGet(HeapCounter.currentThreadAllocatedBytes() - heapBefore);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "demo-files-" + t);
            workers[t].start();
        }
        for (Thread worker : workers) {
            try {
                worker.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the file loader ran", e);
            }
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        Throwable failed = failure.get();
        if (failed instanceof UncheckedIOException io) {
            throw io.getCause();
        }
        if (failed != null) {
            throw new IllegalStateException("file loader failed: " + failed, failed);
        }
        return new Run(images.get(), elapsed, heap.get());
    }

    /** One thread's loop; at least one sample, so a short run still measures something. */
    private long loadUntil(long deadline, SplittableRandom random) {
        int sampleBytes = crop * crop * 3;
        long count = 0;
        try (BytePointer batchMemory = new BytePointer((long) batch * sampleBytes); Mat decoded = new Mat();
             Size size = new Size(crop, crop)) {
            do {
                Path file = files.get(random.nextInt(files.size()));
                byte[] encoded;
                try {
                    encoded = Files.readAllBytes(file);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                try (Mat buffer = new Mat(encoded)) {
                    imdecode(buffer, IMREAD_COLOR_RGB, decoded);
                }
                if (decoded.empty()) {
                    throw new IllegalStateException(file + ": OpenCV cannot decode it");
                }
                int[] box = NaiveRandomResizedCrop.box(decoded.rows(), decoded.cols(), random);
                long slot = count % batch;
                try (Rect rect = new Rect(box[1], box[0], box[3], box[2]); Mat region = new Mat(decoded, rect);
                     Mat out = new Mat(crop, crop, opencv_core.CV_8UC3, batchMemory.getPointer(slot * sampleBytes))) {
                    resize(region, out, size, 0, 0, INTER_LINEAR);
                    if (random.nextBoolean()) {
                        flip(out, out, 1);
                    }
                }
                count++;
            } while (System.nanoTime() < deadline);
        }
        return count;
    }
}
