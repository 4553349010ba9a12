package io.pinshard.cuda.augment;

import io.pinshard.memory.DType;
import java.util.Arrays;

/**
 * What the batched augmentation does: output element type, per-sample colour jitter strengths and the per-channel
 * mean/std normalisation. Immutable.
 *
 * <p>Each jitter factor is drawn uniformly from {@code [1 - strength, 1 + strength]} per sample (see
 * {@link JitterParams}); strength 0 turns that jitter off. The arithmetic is specified by {@link ReferenceAugmenter}.
 */
public final class AugmentSpec {
    /** ImageNet RGB mean and std, the usual torchvision values. */
    public static final float[] IMAGENET_MEAN = {0.485f, 0.456f, 0.406f};
    public static final float[] IMAGENET_STD = {0.229f, 0.224f, 0.225f};

    private final DType output;
    private final float brightness;
    private final float contrast;
    private final float saturation;
    private final long seed;
    private final float[] mean;
    private final float[] std;
    private final float[] invStd;

    private AugmentSpec(DType output, float brightness, float contrast, float saturation, long seed, float[] mean,
                        float[] std) {
        if (output != DType.FLOAT32 && output != DType.FLOAT16 && output != DType.BFLOAT16) {
            throw new IllegalArgumentException("augmentation output must be FLOAT32, FLOAT16 or BFLOAT16: " + output);
        }
        checkStrength("brightness", brightness);
        checkStrength("contrast", contrast);
        checkStrength("saturation", saturation);
        if (mean.length != 3 || std.length != 3) {
            throw new IllegalArgumentException("mean and std need 3 values (R, G, B): " + mean.length + ", " + std.length);
        }
        this.invStd = new float[3];
        for (int c = 0; c < 3; c++) {
            if (!(std[c] > 0) || !Float.isFinite(std[c]) || !Float.isFinite(mean[c])) {
                throw new IllegalArgumentException("std must be positive and finite, mean finite: mean="
                    + Arrays.toString(mean) + " std=" + Arrays.toString(std));
            }
            invStd[c] = 1f / std[c];
        }
        this.output = output;
        this.brightness = brightness;
        this.contrast = contrast;
        this.saturation = saturation;
        this.seed = seed;
        this.mean = mean.clone();
        this.std = std.clone();
    }

    private static void checkStrength(String name, float s) {
        if (!(s >= 0f && s < 1f)) {
            throw new IllegalArgumentException(name + " jitter strength must be in [0, 1): " + s);
        }
    }

    /** Normalisation only (no jitter) with ImageNet statistics, float32 output. */
    public static AugmentSpec normaliseOnly() {
        return new AugmentSpec(DType.FLOAT32, 0f, 0f, 0f, 0L, IMAGENET_MEAN, IMAGENET_STD);
    }

    /** Colour jitter with the given strengths and seed, ImageNet normalisation, float32 output. */
    public static AugmentSpec jitter(float brightness, float contrast, float saturation, long seed) {
        return new AugmentSpec(DType.FLOAT32, brightness, contrast, saturation, seed, IMAGENET_MEAN, IMAGENET_STD);
    }

    public AugmentSpec withOutput(DType type) {
        return new AugmentSpec(type, brightness, contrast, saturation, seed, mean, std);
    }

    public AugmentSpec withNormalisation(float[] newMean, float[] newStd) {
        return new AugmentSpec(output, brightness, contrast, saturation, seed, newMean, newStd);
    }

    public DType output() {
        return output;
    }

    public float brightness() {
        return brightness;
    }

    public float contrast() {
        return contrast;
    }

    public float saturation() {
        return saturation;
    }

    public long seed() {
        return seed;
    }

    public float mean(int channel) {
        return mean[channel];
    }

    /** {@code 1 / std[channel]} as a float: both implementations multiply by it rather than divide. */
    public float invStd(int channel) {
        return invStd[channel];
    }

    public float std(int channel) {
        return std[channel];
    }

    @Override
    public String toString() {
        return "AugmentSpec[" + output + ", brightness=" + brightness + ", contrast=" + contrast + ", saturation="
            + saturation + ", seed=" + seed + ", mean=" + Arrays.toString(mean) + "]";
    }
}
