package io.pinshard.writer.convert;

import static org.bytedeco.opencv.global.opencv_imgproc.INTER_AREA;
import static org.bytedeco.opencv.global.opencv_imgproc.INTER_LINEAR;

import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Size;

/**
 * The one shorter-side resize: scales an image so that its shorter side is exactly the target,
 * the longer side rounded half up from the same ratio, with OpenCV's INTER_AREA (the anti-aliased
 * filter for shrinking) or INTER_LINEAR when enlarging. Used by the converter, the benchmark inputs
 * and the test data preparation, so they all store the same pixels for the same photo.
 */
public final class ShorterSideResize {
    private ShorterSideResize() {
    }

    /** The length of a side of {@code side} pixels once the image's {@code shorter} side becomes {@code target}. */
    public static int scaledSide(int side, int shorter, int target) {
        return (int) Math.max(1, ((long) side * target + shorter / 2) / shorter);
    }

    /** A new image whose shorter side is {@code target} (or a copy, when smaller and not {@code upscale}). */
    public static Mat resize(Mat image, int target, boolean upscale) {
        return resize(image, image.rows(), image.cols(), target, upscale);
    }

    /**
     * A new image of the size that an {@code originalHeight x originalWidth} image takes with its
     * shorter side at {@code target}, made from {@code image}, which may be a reduced-size decode of
     * it (JPEG DCT scaling): the output size comes from the original, so it is the same either way.
     * Smaller originals are copied as they are unless {@code upscale}.
     */
    public static Mat resize(Mat image, int originalHeight, int originalWidth, int target, boolean upscale) {
        int shorter = Math.min(originalHeight, originalWidth);
        Mat out = new Mat();
        if (shorter < target && !upscale) {
            image.copyTo(out);
            return out;
        }
        int height = scaledSide(originalHeight, shorter, target);
        int width = scaledSide(originalWidth, shorter, target);
        if (height == image.rows() && width == image.cols()) {
            image.copyTo(out);
            return out;
        }
        boolean shrinking = height <= image.rows() && width <= image.cols();
        try (Size size = new Size(width, height)) {
            org.bytedeco.opencv.global.opencv_imgproc.resize(image, out, size, 0, 0, shrinking ? INTER_AREA : INTER_LINEAR);
        }
        return out;
    }
}
