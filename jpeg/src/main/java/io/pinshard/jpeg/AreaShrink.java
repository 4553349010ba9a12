package io.pinshard.jpeg;

/**
 * Area-average shrink of 8-bit interleaved pixels ({@code pinshard_shrink.h}): OpenCV's {@code INTER_AREA} for
 * scales of 1 or more, in native code beside the libjpeg-turbo binding so that the converter shrinks what
 * {@link RegionDecoder} decoded without loading OpenCV. Available when {@link TurboJpeg#available} says so.
 */
public final class AreaShrink {
    private AreaShrink() {
    }

    /**
     * Shrinks the {@code sourceHeight x sourceWidth} image at {@code source} (rows {@code sourceStride} bytes
     * apart, {@code channels} bytes per pixel, 1..4) to {@code height x width} at {@code destination} (rows
     * {@code stride} bytes apart). Both sides must shrink or stay: {@code 0 < height <= sourceHeight} and
     * {@code 0 < width <= sourceWidth}.
     *
     * @throws IllegalArgumentException when the sizes or strides do not describe such a shrink
     */
    public static void shrink(long source, int sourceHeight, int sourceWidth, long sourceStride, int channels,
        long destination, int height, int width, long stride) {
        if (source == 0 || destination == 0 || channels < 1 || channels > 4 || height <= 0 || width <= 0
            || height > sourceHeight || width > sourceWidth || sourceStride < (long) sourceWidth * channels
            || stride < (long) width * channels) {
            throw new IllegalArgumentException("no area shrink of " + sourceWidth + "x" + sourceHeight + " (stride "
                + sourceStride + ", " + channels + " channels) to " + width + "x" + height + " (stride " + stride + ")");
        }
        int status = LibJpeg.pinshard_shrink(source, sourceHeight, sourceWidth, sourceStride, channels, destination,
            height, width, stride);
        if (status == JpegResultDescriptor.MEMORY) {
            throw new OutOfMemoryError("area shrink of " + sourceWidth + "x" + sourceHeight + ": native scratch");
        }
        if (status != JpegResultDescriptor.OK) {
            throw new IllegalStateException("pinshard_shrink returned status " + status);
        }
    }
}
