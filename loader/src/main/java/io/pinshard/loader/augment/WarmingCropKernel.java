package io.pinshard.loader.augment;

import io.pinshard.loader.options.PixelFormat;

/**
 * The loader's crop kernel in a fresh process: the {@link ScalarCropResizer} until the {@link VectorCropResizer} is
 * compiled ({@link VectorWarmUp}), the vector kernel from then on. The Vector API runs interpreted, then through C1
 * without its intrinsics, until C2 compiles it: seconds in which every crop is many times slower than in plain Java,
 * and a fresh {@code pinshard serve}'s first batch waited for them. The scalar twin gives the same bytes for every box
 * the vector kernel takes, so no pixel depends on which kernel made it, and it refuses the boxes the vector kernel
 * refuses (they go to OpenCV either way). After the switch a crop costs one volatile read more. Only loaded with
 * {@code jdk.incubator.vector}, as the vector kernel.
 */
final class WarmingCropKernel implements CropKernel {
    private final VectorCropResizer vector;
    private final ScalarCropResizer scalar;
    private final VectorWarmUp warmUp;

    /**
     * The kernel a loader's worker gets (called reflectively by {@link CropResizer}, as the class needs the vector
     * module): this warming kernel, or the {@link VectorCropResizer} itself where {@link VectorWarmUp#PROPERTY} is
     * false.
     */
    public static CropKernel forLoader(int crop, PixelFormat pixels, int warmUpAfter) {
        return VectorWarmUp.enabled() ? new WarmingCropKernel(crop, pixels, warmUpAfter)
            : new VectorCropResizer(crop, pixels);
    }

    WarmingCropKernel(int crop, PixelFormat pixels) {
        this(crop, pixels, 0);
    }

    /** @param warmUpAfter scalar crops before the warm-up starts ({@link VectorWarmUp#of(int, PixelFormat, long)}) */
    WarmingCropKernel(int crop, PixelFormat pixels, int warmUpAfter) {
        this.vector = new VectorCropResizer(crop, pixels);
        this.scalar = new ScalarCropResizer(crop, pixels);
        this.warmUp = VectorWarmUp.of(crop, pixels, warmUpAfter);
    }

    @Override
    public boolean resizeInto(long image, long step, CropBox box, long destination) {
        if (warmUp.done()) {
            return vector.resizeInto(image, step, box, destination);
        }
        if (!vector.accepts(box)) {
            return false;
        }
        warmUp.scalarCropped();
        return scalar.resizeInto(image, step, box, destination);
    }

    @Override
    public boolean resizeInto(Yuv420Rows image, CropBox box, long destination) {
        if (warmUp.done()) {
            return vector.resizeInto(image, box, destination);
        }
        if (!vector.accepts(box)) {
            return false;
        }
        warmUp.scalarCropped();
        return scalar.resizeInto(image, box, destination);
    }

    @Override
    public PixelRows rows() {
        return vector.rows(); // OpenCV's crops: the same values as the scalar rows'
    }
}
