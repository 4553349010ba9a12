package io.pinshard.loader.augment;

import io.pinshard.loader.options.PixelFormat;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.LoggerFactory;

/**
 * Compiles the vector crop kernel before the loader's workers use it, once per JVM and pixel format: a daemon thread
 * crops a synthetic image with a {@link VectorCropResizer} on seeded boxes (every 8th box also with a
 * {@link ScalarCropResizer} of its own, for the time to beat) until the vector kernel has been twice as fast as the
 * twin for {@link #FASTER_IN_A_ROW} crops in a row (C2 has compiled it: interpreted or through C1 it is many times
 * slower than the twin), or for at most {@link #MAX_CROPS} crops. Until then {@link WarmingCropKernel} crops with the
 * scalar twin. What the thread allocates (the cold Vector API's boxed vectors, two images) is its own: no worker's
 * heap counter sees it.
 *
 * <p>The thread waits (parked, from the first kernel's start) until the workers have made a loader's first batch of
 * crops with the twin: cropping with the cold Vector API and C2 compiling it take about a core for a second or two, and
 * on a small machine a fresh {@code pinshard serve}'s first batch waited for them (2 cores, batch 256: 1.9 s with the
 * warm-up beside it, 1.0-1.4 s after it; docs/benchmarks.md, "first batch").
 */
final class VectorWarmUp implements Runnable {
    /** System property: {@code false} skips the warm-up (the vector kernel from the first crop, as before). */
    static final String PROPERTY = "pinshard.vector.warmup";
    static final int FASTER_IN_A_ROW = 16;
    static final int MAX_CROPS = 20_000;
    private static final int SCALAR_EVERY = 8;
    private static final int MIN_CROPS = 64;
    private static final ConcurrentHashMap<PixelFormat, VectorWarmUp> BY_FORMAT = new ConcurrentHashMap<>();

    private final int crop;
    private final PixelFormat pixels;
    /** Scalar crops the workers make before the thread starts cropping. */
    private final long startAfter;
    private final AtomicLong scalarCrops = new AtomicLong();
    /** Parked until the workers' count is reached; started by {@link #start}. */
    private final Thread thread;
    private volatile boolean started;
    private volatile boolean done;

    private VectorWarmUp(int crop, PixelFormat pixels, long startAfter) {
        this.crop = crop;
        this.pixels = pixels;
        this.startAfter = startAfter;
        this.thread = new Thread(this, "pinshard-vector-warmup");
        thread.setDaemon(true);
    }

    /** Whether the warm-up is on in this JVM (the property is not {@code false}). */
    static boolean enabled() {
        return !"false".equalsIgnoreCase(System.getProperty(PROPERTY, "true").trim());
    }

    /** This JVM's warm-up for {@code pixels}, started by the first kernel that asks, cropping at once. */
    static VectorWarmUp of(int crop, PixelFormat pixels) {
        return of(crop, pixels, 0);
    }

    /**
     * This JVM's warm-up for {@code pixels}, started by the first kernel that asks; it crops once the workers have
     * counted {@code startAfter} crops of their own ({@link #scalarCropped}), at once for 0. Later askers share it as
     * it is (their own count is ignored).
     */
    static VectorWarmUp of(int crop, PixelFormat pixels, long startAfter) {
        return BY_FORMAT.computeIfAbsent(pixels, format -> start(crop, format, startAfter));
    }

    /** A warm-up of its own (not this JVM's for the format: tests), its thread started. */
    static VectorWarmUp start(int crop, PixelFormat pixels, long startAfter) {
        VectorWarmUp warmUp = new VectorWarmUp(crop, pixels, Math.max(0, startAfter));
        KernelWarmUps.started();
        warmUp.thread.start();
        return warmUp;
    }

    /**
     * Counts one crop a worker made with the scalar twin; the one that reaches the count the warm-up waits for wakes its
     * thread. No allocation: the thread exists, parked.
     */
    void scalarCropped() {
        if (!started && scalarCrops.incrementAndGet() == startAfter) {
            LockSupport.unpark(thread);
        }
    }

    /** Whether the thread has begun cropping (the workers' count reached, or none asked for). */
    boolean started() {
        return started;
    }

    /** Whether the vector kernel is compiled (or the warm-up gave up waiting): workers may use it. */
    boolean done() {
        return done;
    }

    @Override
    public void run() {
        while (scalarCrops.get() < startAfter) {
            LockSupport.park(this);
        }
        started = true;
        int side = 2 * crop + 7;
        long step = side * 3L;
        ByteBuffer image = ByteBuffer.allocateDirect(Math.toIntExact(side * step));
        ByteBuffer output = ByteBuffer.allocateDirect(Math.toIntExact(pixels.imageBytes(crop)));
        try {
            UnsafeBuffer pixelsIn = new UnsafeBuffer(image);
            SplittableRandom random = new SplittableRandom(side);
            for (int k = 0; k < pixelsIn.capacity(); k++) {
                pixelsIn.putByte(k, (byte) random.nextInt(256));
            }
            long source = pixelsIn.addressOffset();
            long destination = new UnsafeBuffer(output).addressOffset();
            VectorCropResizer vector = new VectorCropResizer(crop, pixels);
            ScalarCropResizer scalar = new ScalarCropResizer(crop, pixels);
            CropBox box = new CropBox();
            int fasterInARow = 0;
            long scalarNanos = 0;
            int crops = 0;
            while (fasterInARow < FASTER_IN_A_ROW && crops < MAX_CROPS) {
                int least = Math.max(1, crop / 2);
                int width = least + random.nextInt(side - least);
                int height = least + random.nextInt(side - least);
                box.set(random.nextInt(side - width + 1), random.nextInt(side - height + 1), width, height,
                    random.nextBoolean());
                long start = System.nanoTime();
                boolean taken = vector.resizeInto(source, step, box, destination);
                long vectorNanos = System.nanoTime() - start;
                crops++;
                if (!taken) {
                    continue;
                }
                if (crops % SCALAR_EVERY == 1) { // the scalar time moves little: measured on every 8th box only
                    start = System.nanoTime();
                    scalar.resizeInto(source, step, box, destination);
                    scalarNanos = System.nanoTime() - start;
                }
                // compiled, the vector kernel is several times faster than the twin; interpreted or through C1,
                // slower: twice as fast is past doubt. The first boxes, where the twin runs cold, do not count.
                fasterInARow = crops > MIN_CROPS && 2 * vectorNanos < scalarNanos ? fasterInARow + 1 : 0;
            }
        } catch (RuntimeException | Error e) {
            LoggerFactory.getLogger(VectorWarmUp.class).warn("pinshard: the vector kernel's warm-up failed ({}); the "
                + "workers switch to it now", e.toString());
        } finally {
            done = true;
            KernelWarmUps.ended();
            BufferUtil.free(image);
            BufferUtil.free(output);
        }
    }
}
