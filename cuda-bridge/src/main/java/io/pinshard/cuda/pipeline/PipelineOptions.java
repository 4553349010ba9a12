package io.pinshard.cuda.pipeline;

import io.pinshard.cuda.augment.AugmentSpec;

/**
 * Shape and behaviour of a {@link DeviceBatchPipeline}.
 *
 * @param maxBatch   the largest batch it accepts (device buffers are sized for it)
 * @param height     image height in pixels
 * @param width      image width in pixels
 * @param ringSize   device slots (2 or more): batches in flight plus those the trainer holds
 * @param augment    the GPU augmentation, or {@code null} to hand over the uint8 NHWC batch as copied
 */
public record PipelineOptions(int maxBatch, int height, int width, int ringSize, AugmentSpec augment) {
    public PipelineOptions {
        if (maxBatch <= 0 || height <= 0 || width <= 0) {
            throw new IllegalArgumentException("batch, height and width must be positive: " + maxBatch + "x" + height
                + "x" + width);
        }
        if (ringSize < 2 || ringSize > 64) {
            throw new IllegalArgumentException("ring size must be 2 to 64: " + ringSize);
        }
        if ((long) maxBatch * height * width * 3 * 4 > (1L << 40)) {
            throw new IllegalArgumentException("batch of " + maxBatch + "x" + height + "x" + width + " is too large");
        }
    }

    /** Three slots (one being filled, one ready, one held by the trainer), uint8 output. */
    public static PipelineOptions raw(int maxBatch, int height, int width) {
        return new PipelineOptions(maxBatch, height, width, 3, null);
    }

    public PipelineOptions withAugment(AugmentSpec spec) {
        return new PipelineOptions(maxBatch, height, width, ringSize, spec);
    }

    public PipelineOptions withRingSize(int slots) {
        return new PipelineOptions(maxBatch, height, width, slots, augment);
    }

    long imageBytes() {
        return (long) maxBatch * height * width * 3;
    }

    long outputBytes() {
        return augment == null ? 0 : imageBytes() * augment.output().bytes();
    }
}
