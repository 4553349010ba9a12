package io.pinshard.torch;

import java.util.Arrays;

/**
 * How {@link TorchBatch#normalized()} maps pixels: {@code (x / 255 - mean[c]) / std[c]} per RGB channel.
 * Immutable; {@link #defaults()} are the ImageNet statistics torchvision uses.
 */
public final class TorchOptions {
    private static final TorchOptions IMAGENET = new TorchOptions(new float[] {0.485f, 0.456f, 0.406f},
        new float[] {0.229f, 0.224f, 0.225f});

    private final float[] mean;
    private final float[] std;

    private TorchOptions(float[] mean, float[] std) {
        this.mean = mean;
        this.std = std;
    }

    /** ImageNet mean (0.485, 0.456, 0.406) and std (0.229, 0.224, 0.225). */
    public static TorchOptions defaults() {
        return IMAGENET;
    }

    /**
     * Per-channel statistics in RGB order, on the 0..1 scale.
     *
     * @throws IllegalArgumentException unless both have 3 finite values and every std is positive
     */
    public static TorchOptions normalize(float[] mean, float[] std) {
        if (mean == null || std == null || mean.length != 3 || std.length != 3) {
            throw new IllegalArgumentException("mean and std need one value per RGB channel: "
                + Arrays.toString(mean) + ", " + Arrays.toString(std));
        }
        for (int c = 0; c < 3; c++) {
            if (!Float.isFinite(mean[c]) || !Float.isFinite(std[c]) || std[c] <= 0) {
                throw new IllegalArgumentException("mean must be finite and std finite and > 0: "
                    + Arrays.toString(mean) + ", " + Arrays.toString(std));
            }
        }
        return new TorchOptions(mean.clone(), std.clone());
    }

    public float mean(int channel) {
        return mean[channel];
    }

    public float std(int channel) {
        return std[channel];
    }

    @Override
    public String toString() {
        return "TorchOptions[mean=" + Arrays.toString(mean) + ", std=" + Arrays.toString(std) + "]";
    }
}
