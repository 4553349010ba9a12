package io.pinshard.loader.augment;

/**
 * A fast path for crop box -> bilinear resize -> optional mirror of 3-channel uint8 images. It may refuse
 * a box (returns false) and then {@link CropResizer} does the work with OpenCV instead.
 */
public interface CropKernel {
    /**
     * Writes the {@code crop x crop x 3} result of {@code box} of the RGB image at {@code image} (rows
     * {@code step} bytes apart) to {@code destination}, or returns false without writing anything.
     */
    boolean resizeInto(long image, long step, CropBox box, long destination);
}
