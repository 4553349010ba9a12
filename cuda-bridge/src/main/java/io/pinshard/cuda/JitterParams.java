package io.pinshard.cuda;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Per-sample colour-jitter factors, drawn from the spec's seed and the sample id only (SplitMix64), so a sample
 * gets the same jitter whatever batch, worker or backend it goes through. Both backends read the factors from the
 * same native table, written here on the host: the GPU kernel never draws random numbers itself.
 *
 * <pre>
 * one entry per sample, {@link #BYTES_PER_SAMPLE} bytes, little-endian float32:
 *   0        4          8           12        16
 *   +--------+----------+-----------+---------+
 *   | bright | contrast | saturation| (pad 0) |
 *   +--------+----------+-----------+---------+
 * </pre>
 */
public final class JitterParams {
    public static final int BRIGHTNESS_OFFSET = 0;
    public static final int CONTRAST_OFFSET = BRIGHTNESS_OFFSET + Float.BYTES;
    public static final int SATURATION_OFFSET = CONTRAST_OFFSET + Float.BYTES;
    public static final int PAD_OFFSET = SATURATION_OFFSET + Float.BYTES;
    public static final int BYTES_PER_SAMPLE = PAD_OFFSET + Float.BYTES;

    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private JitterParams() {
    }

    /** Writes the factors of {@code sampleId} into entry {@code index} of the table in {@code table}. */
    public static void write(AugmentSpec spec, long sampleId, UnsafeBuffer table, int index) {
        int at = index * BYTES_PER_SAMPLE;
        table.putFloat(at + BRIGHTNESS_OFFSET, factor(spec.seed(), sampleId, 0, spec.brightness()));
        table.putFloat(at + CONTRAST_OFFSET, factor(spec.seed(), sampleId, 1, spec.contrast()));
        table.putFloat(at + SATURATION_OFFSET, factor(spec.seed(), sampleId, 2, spec.saturation()));
        table.putFloat(at + PAD_OFFSET, 0f);
    }

    /**
     * Factor {@code which} (0 brightness, 1 contrast, 2 saturation) of a sample: uniform in
     * {@code [1 - strength, 1 + strength)}; exactly 1 when strength is 0.
     */
    public static float factor(long seed, long sampleId, int which, float strength) {
        long base = mix(seed ^ mix(sampleId + GOLDEN_GAMMA));
        float uniform = (mix(base + (which + 1) * GOLDEN_GAMMA) >>> 40) * 0x1.0p-24f;
        return (1f - strength) + (2f * strength) * uniform;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
