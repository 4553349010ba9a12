package io.pinshard.jpeg;

import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR_RGB;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_GRAYSCALE;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_IGNORE_ORIENTATION;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_GRAYSCALE_2;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_GRAYSCALE_4;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_GRAYSCALE_8;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imdecode;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imdecodemulti;

import org.agrona.concurrent.UnsafeBuffer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.MatVector;

/**
 * The OpenCV JPEG decoder (OpenCV's bundled libjpeg-turbo), behind {@link JpegDecoding}: for the reader and the
 * loader where libjpeg-turbo's own API is not available ({@link JpegDecoding#turbo()}: region and M/8-scaled
 * decodes) and for the streams that API leaves to it (CMYK, YCCK).
 * Input is native memory the caller owns (a copy of the payload, never the mapping: a truncated file would
 * fault inside libjpeg). Two ways out:
 * <ul>
 * <li>{@link #decodeInto}: full size, 1 or 3 channels, straight into the caller's memory;</li>
 * <li>{@link #decode}: RGB at full size or at 1/2, 1/4, 1/8 scale (libjpeg's DCT scaling, far cheaper than a
 * full decode when a crop is smaller than the stored image) into one reused, OpenCV-owned image read through
 * {@link #rows()}, {@link #cols()}, {@link #dataAddress()}, {@link #step()}.</li>
 * </ul>
 * The stored frame is the image (SPEC.md, section 6): an Exif orientation tag must not rotate it.
 *
 * <p>Full-size {@link #decode} goes through {@code imdecodemulti} into a reused {@code std::vector<cv::Mat>}
 * whose first element is read in place: no heap allocation. Reduced decodes need {@code imdecode}, whose Java
 * binding returns a new {@code Mat} object (closed at once): about 180 heap bytes per such sample.
 * OpenCV's natives load on first use, so readers of raw and lz4 shards never pay for them. One per thread.
 */
public final class OpenCvJpegDecoder implements AutoCloseable {
    private static final int CV_8UC3_TYPE = 16;

    private final MatHeader encoded = new MatHeader();
    private final MatHeader target = new MatHeader();
    private final Mat decoded = new Mat();
    private final MatVector pages = new MatVector();
    private final UnsafeBuffer pagesFields = new UnsafeBuffer(pages.address(), 24);
    private final UnsafeBuffer decodedFields = new UnsafeBuffer(decoded.address(), MatHeader.LENGTH);
    private final UnsafeBuffer targetFields = new UnsafeBuffer(target.mat().address(), MatHeader.LENGTH);
    private boolean vectorLayoutChecked;

    public OpenCvJpegDecoder() {
        OpenCvRuntime.ready(); // one thread: the callers' workers are the parallelism
    }

    /**
     * Decodes {@code length} bytes at {@code address} into {@code height x width x channels} pixels
     * (1 = grey, 3 = RGB) at {@code destination}.
     *
     * @return null on success, else why the payload could not be decoded
     */
    public String decodeInto(long address, int length, int height, int width, int channels, long destination) {
        if (channels != 1 && channels != 3) {
            return "jpeg records hold 1 or 3 channels, not " + channels;
        }
        int flags = (channels == 1 ? IMREAD_GRAYSCALE : IMREAD_COLOR_RGB) | IMREAD_IGNORE_ORIENTATION;
        try {
            Mat out = target.point(destination, height, width, channels, (long) width * channels);
            // A failed decode returns an empty Mat and may leave the placeholder untouched: only the result tells.
            try (Mat result = imdecode(encoded.point(address, 1, length, 1, length), flags, out)) {
                if (result.empty()) {
                    return "jpeg payload cannot be decoded";
                }
            }
        } catch (RuntimeException e) {
            return "jpeg payload cannot be decoded: " + e.getMessage();
        }
        int rows = targetFields.getInt(MatHeader.ROWS);
        int cols = targetFields.getInt(MatHeader.COLS);
        int decodedChannels = ((targetFields.getInt(MatHeader.FLAGS) & 0xFFF) >> 3) + 1;
        if (targetFields.getLong(MatHeader.DATA) != destination) {
            target.mat().release(); // OpenCV allocated an image of another shape instead of filling ours (or none)
            return rows == 0 || cols == 0 ? "jpeg payload cannot be decoded" : "jpeg decodes to " + rows + "x" + cols
                + "x" + decodedChannels + ", the index says " + height + "x" + width + "x" + channels;
        }
        return null;
    }

    /**
     * Decodes {@code length} bytes at {@code address} to RGB at {@code 1/factor} scale (1, 2, 4 or 8).
     *
     * @return null on success, else why it failed
     */
    public String decode(long address, int length, int height, int width, int factor) {
        int flags = IMREAD_IGNORE_ORIENTATION | switch (factor) {
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
                // The result, not the placeholder, says whether this decode worked: a failed one may leave the
                // previous record's pixels in the placeholder.
                try (Mat result = imdecode(input, flags, decoded)) {
                    if (result.empty()) {
                        return "jpeg payload cannot be decoded";
                    }
                }
                decodedFields.wrap(decoded.address(), MatHeader.LENGTH);
            }
        } catch (RuntimeException e) {
            return "jpeg payload cannot be decoded: " + e.getMessage();
        }
        int expectedRows = (height + factor - 1) / factor;
        int expectedCols = (width + factor - 1) / factor;
        int type = decodedFields.getInt(MatHeader.FLAGS) & 0xFFF;
        if (rows() != expectedRows || cols() != expectedCols || type != CV_8UC3_TYPE) {
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

    /** Rows of the image the last {@link #decode} made. */
    public int rows() {
        return decodedFields.getInt(MatHeader.ROWS);
    }

    public int cols() {
        return decodedFields.getInt(MatHeader.COLS);
    }

    public long dataAddress() {
        return decodedFields.getLong(MatHeader.DATA);
    }

    /** Bytes between rows. */
    public long step() {
        return decodedFields.getLong(MatHeader.STEP_BUF);
    }

    @Override
    public void close() {
        decoded.close();
        pages.close();
        encoded.close();
        target.close();
    }
}
