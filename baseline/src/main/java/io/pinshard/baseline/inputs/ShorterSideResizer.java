package io.pinshard.baseline.inputs;

import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_QUALITY;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imencode;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imread;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imwrite;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_BGR2RGB;
import static org.bytedeco.opencv.global.opencv_imgproc.INTER_AREA;
import static org.bytedeco.opencv.global.opencv_imgproc.cvtColor;
import static org.bytedeco.opencv.global.opencv_imgproc.resize;

import java.io.IOException;
import java.nio.file.Path;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Size;

/**
 * Image reading, shorter-side resizing (OpenCV INTER_AREA, the anti-aliased filter for shrinking)
 * and encoding for benchmark inputs and the demo. Offline preparation only: it allocates freely.
 */
public final class ShorterSideResizer {
    private ShorterSideResizer() {
    }

    /** Reads any image OpenCV understands as 3-channel BGR. */
    public static Mat readBgr(Path file) throws IOException {
        Mat image = imread(file.toString(), IMREAD_COLOR);
        if (image == null || image.empty()) {
            throw new IOException(file + " cannot be decoded as an image");
        }
        return image;
    }

    /** A copy of {@code bgr} whose shorter side is {@code side} pixels; never upscales. */
    public static Mat shorterSide(Mat bgr, int side) {
        int height = bgr.rows();
        int width = bgr.cols();
        int shorter = Math.min(height, width);
        if (shorter <= side) {
            return bgr.clone();
        }
        double scale = (double) side / shorter;
        int newHeight = height <= width ? side : (int) Math.round(height * scale);
        int newWidth = height <= width ? (int) Math.round(width * scale) : side;
        Mat out = new Mat();
        try (Size size = new Size(newWidth, newHeight)) {
            resize(bgr, out, size, 0, 0, INTER_AREA);
        }
        return out;
    }

    /** JPEG bytes of a BGR image. */
    public static byte[] encodeJpeg(Mat bgr, int quality) throws IOException {
        try (BytePointer out = new BytePointer(); IntPointer params = new IntPointer(IMWRITE_JPEG_QUALITY, quality)) {
            if (!imencode(".jpg", bgr, out, params)) {
                throw new IOException("OpenCV could not encode a " + bgr.cols() + "x" + bgr.rows() + " JPEG");
            }
            byte[] bytes = new byte[(int) out.limit()];
            out.get(bytes);
            return bytes;
        }
    }

    /** Writes a lossless PNG. */
    public static void writePng(Mat bgr, Path file) throws IOException {
        if (!imwrite(file.toString(), bgr)) {
            throw new IOException("OpenCV could not write " + file);
        }
    }

    /** Row-major RGB uint8 pixels of a BGR image (the layout pinshard stores for raw and lz4). */
    public static byte[] rgbPixels(Mat bgr) {
        try (Mat rgb = new Mat()) {
            cvtColor(bgr, rgb, COLOR_BGR2RGB);
            byte[] pixels = new byte[rgb.rows() * rgb.cols() * 3];
            if (rgb.isContinuous()) {
                rgb.data().get(pixels);
            } else {
                try (Mat copy = rgb.clone()) {
                    copy.data().get(pixels);
                }
            }
            return pixels;
        }
    }
}
