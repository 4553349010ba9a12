package io.pinshard.cuda.augment;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Per-sample colour-jitter factors, drawn from (seed, epoch, record) only (SplitMix64), so a sample gets the same
 * jitter whatever batch, worker, backend or language it goes through, and another one next epoch. Both backends
 * read the factors from the same native table, written here on the host: the GPU kernel never draws random numbers
 * itself. The Python path ({@code python/pinshard/_jitter.py}) implements the same rule; the vectors that
 * {@code JitterVectors} writes from this class ({@code python/tests/jitter_vectors.json}) check that both agree.
 *
 * <p>The rule, in 64-bit two's-complement arithmetic ({@code >>>} a logical shift, {@code G = 0x9E3779B97F4A7C15}):
 * <pre>
 *   mix(z)     = z ^= z >>> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >>> 27; z *= 0x94D049BB133111EB; z ^ z >>> 31
 *   base       = mix(seed ^ mix(record + G) ^ mix(epoch * G))           (epoch 0: mix(0) = 0 drops out)
 *   uniform(k) = (mix(base + (k + 1) * G) >>> 40) * 2^-24               float32 in [0, 1), exact
 *   factor(k)  = low + (high - low) * uniform(k)                        float32, each operation rounded
 * </pre>
 * Draw {@code k}: {@link #BRIGHTNESS} 0, {@link #CONTRAST} 1, {@link #SATURATION} 2 (range {@code [1 - s, 1 + s]}
 * for strength s), {@link #HUE} 3 (range {@code [-h, h]}), {@link #GRAYSCALE} 4 (grey when uniform &lt; p). This
 * pipeline applies the first three; the Python path applies all five, with torchvision's ranges.
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

    /** Draw numbers ({@code which}) of the five per-sample draws. */
    public static final int BRIGHTNESS = 0;
    public static final int CONTRAST = 1;
    public static final int SATURATION = 2;
    public static final int HUE = 3;
    public static final int GRAYSCALE = 4;

    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private JitterParams() {
    }

    /** Writes the factors of record {@code sampleId} in {@code epoch} into entry {@code index} of {@code table}. */
    public static void write(AugmentSpec spec, long epoch, long sampleId, UnsafeBuffer table, int index) {
        int at = index * BYTES_PER_SAMPLE;
        table.putFloat(at + BRIGHTNESS_OFFSET, factor(spec.seed(), epoch, sampleId, BRIGHTNESS, spec.brightness()));
        table.putFloat(at + CONTRAST_OFFSET, factor(spec.seed(), epoch, sampleId, CONTRAST, spec.contrast()));
        table.putFloat(at + SATURATION_OFFSET, factor(spec.seed(), epoch, sampleId, SATURATION, spec.saturation()));
        table.putFloat(at + PAD_OFFSET, 0f);
    }

    /**
     * Factor {@code which} of a sample for strength {@code s}: uniform in {@code [1 - s, 1 + s)}; exactly 1 when
     * s is 0.
     */
    public static float factor(long seed, long epoch, long sampleId, int which, float strength) {
        return factor(seed, epoch, sampleId, which, 1f - strength, 1f + strength);
    }

    /** Factor {@code which} of a sample: {@code low + (high - low) * uniform}, in float32. */
    public static float factor(long seed, long epoch, long sampleId, int which, float low, float high) {
        return low + (high - low) * uniform(seed, epoch, sampleId, which);
    }

    /** Draw {@code which} of a sample: 24 random bits as a float in {@code [0, 1)}. */
    public static float uniform(long seed, long epoch, long sampleId, int which) {
        long base = mix(seed ^ mix(sampleId + GOLDEN_GAMMA) ^ mix(epoch * GOLDEN_GAMMA));
        return (mix(base + (which + 1) * GOLDEN_GAMMA) >>> 40) * 0x1.0p-24f;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
