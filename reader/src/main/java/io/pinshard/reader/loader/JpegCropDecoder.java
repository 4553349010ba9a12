package io.pinshard.reader.loader;

import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR_RGB;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_GRAYSCALE_2;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_GRAYSCALE_4;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_GRAYSCALE_8;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imdecode;

import org.agrona.concurrent.UnsafeBuffer;
import org.bytedeco.opencv.opencv_core.Mat;

/**
 * Decodes JPEG payloads straight from the mapping into one reused, OpenCV-owned RGB image, at full
 * size or at 1/2, 1/4, 1/8 scale (libjpeg's DCT scaling, far cheaper than a full decode when the crop is
 * smaller than the stored image). The input header is re-aimed per call ({@link MatHeader}); the output
 * matrix is reallocated by OpenCV only when the decoded size changes. OpenCV's Java binding returns a
 * new {@code Mat} object from {@code imdecode}, closed at once: about 180 heap bytes per JPEG sample.
 */
final class JpegCropDecoder implements AutoCloseable {
    private final MatHeader encoded = new MatHeader();
    private final Mat decoded = new Mat();
    private final UnsafeBuffer decodedFields = new UnsafeBuffer(decoded.address(), MatHeader.LENGTH);

    /** The largest power-of-two reduction (1, 2, 4, 8) that still leaves the box at least {@code crop} wide and high. */
    static int reduction(CropBox box, int crop, boolean allowed) {
        if (!allowed) {
            return 1;
        }
        int factor = 8;
        while (factor > 1 && (box.width / factor < crop || box.height / factor < crop)) {
            factor >>= 1;
        }
        return factor;
    }

    /**
     * Decodes {@code length} bytes at {@code address} at {@code 1/factor} scale.
     *
     * @return null on success, else why it failed
     */
    String decode(long address, int length, int height, int width, int factor) {
        int flags = switch (factor) {
            case 1 -> IMREAD_COLOR_RGB;
            case 2 -> IMREAD_REDUCED_GRAYSCALE_2 | IMREAD_COLOR_RGB;
            case 4 -> IMREAD_REDUCED_GRAYSCALE_4 | IMREAD_COLOR_RGB;
            case 8 -> IMREAD_REDUCED_GRAYSCALE_8 | IMREAD_COLOR_RGB;
            default -> throw new IllegalArgumentException("reduction must be 1, 2, 4 or 8: " + factor);
        };
        try {
            imdecode(encoded.point(address, 1, length, 1, length), flags, decoded).close();
        } catch (RuntimeException e) {
            return "jpeg payload cannot be decoded: " + e.getMessage();
        }
        if (decoded.empty()) {
            return "jpeg payload cannot be decoded";
        }
        int expectedRows = (height + factor - 1) / factor;
        int expectedCols = (width + factor - 1) / factor;
        if (rows() != expectedRows || cols() != expectedCols || decoded.channels() != 3) {
            return "jpeg decodes to " + rows() * factor + "x" + cols() * factor + " (at 1/" + factor
                + " scale), the index says " + height + "x" + width;
        }
        return null;
    }

    int rows() {
        return decodedFields.getInt(MatHeader.ROWS);
    }

    int cols() {
        return decodedFields.getInt(MatHeader.COLS);
    }

    long dataAddress() {
        return decodedFields.getLong(MatHeader.DATA);
    }

    long step() {
        return decodedFields.getLong(MatHeader.STEP_BUF);
    }

    @Override
    public void close() {
        decoded.close();
        encoded.close();
    }
}
