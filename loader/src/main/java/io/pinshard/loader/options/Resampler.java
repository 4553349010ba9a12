package io.pinshard.loader.options;

import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.LoggerFactory;

/**
 * Which code does the bilinear crop-resize-mirror of 3-channel images. {@link #VECTOR} is a JDK Vector API
 * kernel (incubating module, 256-bit vectors) about 1.5x faster than OpenCV's {@code resize} + {@code flip}
 * on this project's benchmark machine; it needs {@code --add-modules jdk.incubator.vector} on the JVM and a
 * CPU with 256-bit vectors (AVX2). It takes every box up to {@link #VECTOR_SURE_SCALE} times the output
 * side wide, and wider ones up to {@value #VECTOR_MAX_SCALE}x where its source windows reach (32 bytes on 256-bit vectors, 64 on AVX-512); other boxes
 * and 1- or 4-channel images go through OpenCV. The two differ by at most one grey level per
 * value; within one choice, results do not depend on threads or scheduling.
 */
public enum Resampler {
    /** {@link #VECTOR} when this JVM can run it, else {@link #OPENCV}. */
    AUTO,
    /** The Vector API kernel; building a loader fails with the reason when this JVM cannot run it. */
    VECTOR,
    /** OpenCV {@code resize} (INTER_LINEAR) and {@code flip} for every crop. */
    OPENCV;

    /** Box width, as a multiple of the output side, up to which the vector kernel takes every box. */
    public static final double VECTOR_SURE_SCALE = 2.5;
    /** Box width, as a multiple of the output side, beyond which the vector kernel refuses every box. */
    public static final int VECTOR_MAX_SCALE = 3;

    private static final String VECTOR_MODULE = "jdk.incubator.vector";
    /** AUTO says once per JVM that it fell back, so a trainer learns what the flag is worth. */
    private static final AtomicBoolean FALLBACK_LOGGED = new AtomicBoolean();
    /** The kernel class, loaded by name so its jdk.incubator imports stay unloaded where the module is absent. */
    public static final String KERNEL_CLASS = "io.pinshard.loader.augment.VectorCropResizer";

    /** {@code auto}, {@code vector} or {@code opencv}, any case. */
    public static Resampler parse(String text) {
        for (Resampler resampler : values()) {
            if (resampler.name().equalsIgnoreCase(text)) {
                return resampler;
            }
        }
        throw new IllegalArgumentException("resampler must be auto, vector or opencv: " + text);
    }

    /** What this choice runs here: {@link #VECTOR} or {@link #OPENCV}, never {@link #AUTO}. */
    public Resampler effective() {
        return switch (this) {
            case OPENCV -> OPENCV;
            case VECTOR -> {
                String reason = vectorUnavailableReason();
                if (reason != null) {
                    throw new IllegalStateException("resampler VECTOR cannot run: " + reason);
                }
                yield VECTOR;
            }
            case AUTO -> {
                String reason = vectorUnavailableReason();
                if (reason != null && FALLBACK_LOGGED.compareAndSet(false, true)) {
                    LoggerFactory.getLogger(Resampler.class).info("pinshard loader crops with OpenCV, not the vector "
                        + "kernel ({}); with --add-modules=jdk.incubator.vector raw shards load about 1.7x faster", reason);
                }
                yield reason == null ? VECTOR : OPENCV;
            }
        };
    }

    /** Why the vector kernel cannot run in this JVM, or null when it can. */
    public static String vectorUnavailableReason() {
        return VectorAvailability.REASON;
    }

    /** Decided once: the module check keeps the kernel class (and its jdk.incubator imports) unloaded when absent. */
    private static final class VectorAvailability {
        static final String REASON = probe();

        private static String probe() {
            if (ModuleLayer.boot().findModule(VECTOR_MODULE).isEmpty()) {
                return "the JVM was started without --add-modules " + VECTOR_MODULE;
            }
            try {
                Object reason = Class.forName(KERNEL_CLASS).getDeclaredMethod("unsupportedReason").invoke(null);
                return (String) reason;
            } catch (ReflectiveOperationException | LinkageError e) {
                return "the vector kernel did not load: " + e;
            }
        }
    }
}
