package io.pinshard.reader;

import static org.bytedeco.opencv.global.opencv_core.CV_8UC1;
import static org.bytedeco.opencv.global.opencv_core.CV_8UC3;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR_RGB;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_GRAYSCALE;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_IGNORE_ORIENTATION;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imdecode;

import org.bytedeco.opencv.opencv_core.Mat;

/**
 * Decodes JPEG payloads with OpenCV (libjpeg-turbo) straight from the mapping into the caller's
 * memory. OpenCV's natives load on first use, so readers of raw and lz4 shards never pay for them.
 */
final class JpegDecoder {
    private final AddressPointer source = new AddressPointer();
    private final AddressPointer target = new AddressPointer();

    /**
     * Decodes {@code length} bytes at {@code address} into {@code height x width x channels} pixels
     * at {@code destination}.
     *
     * @return null on success, else why the payload could not be decoded
     */
    String decode(long address, int length, int height, int width, int channels, long destination) {
        if (channels != 1 && channels != 3) {
            return "jpeg records hold 1 or 3 channels, not " + channels;
        }
        try (Mat encoded = new Mat(1, length, CV_8UC1, source.at(address, length));
             Mat decoded = new Mat(height, width, channels == 1 ? CV_8UC1 : CV_8UC3,
                 target.at(destination, (long) height * width * channels))) {
            // The stored frame is the image (SPEC.md, section 6): an Exif orientation tag must not rotate it.
            imdecode(encoded, (channels == 1 ? IMREAD_GRAYSCALE : IMREAD_COLOR_RGB) | IMREAD_IGNORE_ORIENTATION, decoded);
            if (decoded.empty()) {
                return "jpeg payload cannot be decoded";
            }
            if (decoded.rows() != height || decoded.cols() != width || decoded.channels() != channels) {
                return "jpeg decodes to " + decoded.rows() + "x" + decoded.cols() + "x" + decoded.channels()
                    + ", the index says " + height + "x" + width + "x" + channels;
            }
            if (decoded.data().address() != destination) {
                return "jpeg decoder did not write into the destination buffer";
            }
            return null;
        }
    }
}
