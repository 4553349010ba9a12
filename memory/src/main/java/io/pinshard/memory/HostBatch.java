package io.pinshard.memory;

/**
 * A batch of images the loader filled in host memory: {@code size x height x width x 3} uint8 RGB (NHWC, densely
 * packed) at {@link #imagesAddress()}, {@code size} int32 labels at {@link #labelsAddress()}. The pipeline calls
 * {@link #release()} exactly once, and only after every copy out of this memory has completed; after that the
 * loader may refill the slot. Adapting the loader's batch type to this is a few delegating lines.
 */
public interface HostBatch {
    /** Images in the batch (the leading dimension). */
    int size();

    int height();

    int width();

    /** Always 3 (RGB) for now; the pipeline rejects anything else. */
    int channels();

    /** Address of the NHWC uint8 tensor. */
    long imagesAddress();

    /** Address of {@link #size()} int32 labels. */
    long labelsAddress();

    /** Global sample id of image {@code index}: with {@link #epoch()} it seeds that image's colour jitter. */
    long sampleId(int index);

    /** The loader's epoch this batch belongs to (0 for a source without epochs). */
    int epoch();

    /** Gives the slot back to the loader. */
    void release();
}
