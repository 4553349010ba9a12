package io.pinshard.jpeg;

/**
 * Alpha compositing of 8-bit pixels on an opaque background ({@code pinshard_composite.h}) in one integer pass,
 * in native code beside the libjpeg-turbo binding: the converter's PNGs with alpha, where OpenCV's float
 * {@code blendLinear} took longer than the decode. Available when {@link TurboJpeg#available} says so.
 */
public final class AlphaComposite {
    private AlphaComposite() {
    }

    /**
     * Composites the {@code height x width} image at {@code source} (rows {@code sourceStride} bytes apart;
     * {@code channels} 2 for grey and alpha, 4 for three colours and alpha) on the background {@code b0, b1, b2}
     * (0..255, in the colours' order) into 3-channel pixels at {@code destination} (rows {@code stride} bytes
     * apart): each value {@code (v * a + b * (255 - a)) / 255}, rounded to nearest.
     *
     * @throws IllegalArgumentException when the sizes, strides, channels or background do not fit
     */
    public static void onBackground(long source, int height, int width, long sourceStride, int channels, int b0,
        int b1, int b2, long destination, long stride) {
        if (source == 0 || destination == 0 || height <= 0 || width <= 0 || (channels != 2 && channels != 4)
            || sourceStride < (long) width * channels || stride < (long) width * 3 || (b0 | b1 | b2) < 0
            || Math.max(b0, Math.max(b1, b2)) > 255) {
            throw new IllegalArgumentException("no alpha composite of " + width + "x" + height + " (stride " + sourceStride
                + ", " + channels + " channels) on (" + b0 + ", " + b1 + ", " + b2 + ") to stride " + stride);
        }
        int status = LibJpeg.pinshard_composite(source, height, width, sourceStride, channels, b0, b1, b2, destination,
            stride);
        if (status != JpegResultDescriptor.OK) {
            throw new IllegalStateException("pinshard_composite returned status " + status);
        }
    }
}
