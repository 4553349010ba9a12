package io.pinshard.reader.loader;

import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR_RGB;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_GRAYSCALE_2;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_GRAYSCALE_4;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_GRAYSCALE_8;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imdecode;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imdecodemulti;

import org.agrona.concurrent.UnsafeBuffer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.MatVector;

/**
 * Decodes JPEG payloads straight from the mapping into one reused, OpenCV-owned RGB image, at full
 * size or at 1/2, 1/4, 1/8 scale (libjpeg's DCT scaling, far cheaper than a full decode when the crop is
 * smaller than the stored image). The input header is re-aimed per call ({@link MatHeader}).
 *
 * <p>Full-size decodes go through {@code imdecodemulti} into a reused {@code std::vector<cv::Mat>} whose
 * first element is read in place: no heap allocation. Reduced decodes need {@code imdecode}, whose Java
 * binding returns a new {@code Mat} object (closed at once): about 180 heap bytes per such sample.
 */
final class JpegCropDecoder implements AutoCloseable {
    private final MatHeader encoded = new MatHeader();
    private final Mat decoded = new Mat();
    private final MatVector pages = new MatVector();
    private final UnsafeBuffer pagesFields = new UnsafeBuffer(pages.address(), 24);
    private final UnsafeBuffer decodedFields = new UnsafeBuffer(decoded.address(), MatHeader.LENGTH);
    private boolean vectorLayoutChecked;

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
            Mat input = encoded.point(address, 1, length, 1, length);
            if (factor == 1) {
                pages.clear();
                if (!imdecodemulti(input, flags, pages) || pages.size() != 1) {
                    return "jpeg payload cannot be decoded";
                }
                decodedFields.wrap(firstPageAddress(), MatHeader.LENGTH);
            } else {
                imdecode(input, flags, decoded).close();
                decodedFields.wrap(decoded.address(), MatHeader.LENGTH);
                if (decoded.empty()) {
                    return "jpeg payload cannot be decoded";
                }
            }
        } catch (RuntimeException e) {
            return "jpeg payload cannot be decoded: " + e.getMessage();
        }
        int expectedRows = (height + factor - 1) / factor;
        int expectedCols = (width + factor - 1) / factor;
        int type = decodedFields.getInt(MatHeader.FLAGS) & 0xFFF;
        if (rows() != expectedRows || cols() != expectedCols || type != 16 /* CV_8UC3 */) {
            return "jpeg decodes to " + rows() * factor + "x" + cols() * factor + " (at 1/" + factor
                + " scale), the index says " + height + "x" + width;
        }
        return null;
    }

    /** Native address of the vector's first {@code cv::Mat} (libstdc++/libc++ keep the begin pointer first). */
    private long firstPageAddress() {
        long first = pagesFields.getLong(0);
        if (!vectorLayoutChecked) {
            try (Mat page = pages.get(0)) {
                if (page.address() != first) {
                    throw new IllegalStateException("unexpected std::vector<cv::Mat> layout in this OpenCV build");
                }
            }
            vectorLayoutChecked = true;
        }
        return first;
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
        pages.close();
        encoded.close();
    }
}
