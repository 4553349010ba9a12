package io.pinshard.loader.augment;

/**
 * A fast path for crop box -> bilinear resize -> optional mirror of 3-channel uint8 images, written in the loader's
 * pixel format by its {@link #rows()}. It may refuse a box (returns false) and then {@link CropResizer} does the work
 * with OpenCV instead.
 */
public interface CropKernel {
    /**
     * Writes the {@code crop x crop x 3} result of {@code box} of the RGB image at {@code image} (rows
     * {@code step} bytes apart) to {@code destination} in the kernel's pixel format, or returns false without
     * writing anything.
     */
    boolean resizeInto(long image, long step, CropBox box, long destination);

    /**
     * As {@link #resizeInto} for a yuv420 image: each box row is converted to RGB as the kernel reads it, so the crop
     * and the colour conversion are one pass; false, writing nothing, when the kernel refuses the box.
     */
    boolean resizeInto(Yuv420Rows image, CropBox box, long destination);

    /** The kernel's last step: finished uint8 rows to the destination's format (also for OpenCV's crops). */
    PixelRows rows();
}
