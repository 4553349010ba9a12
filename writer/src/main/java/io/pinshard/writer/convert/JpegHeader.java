package io.pinshard.writer.convert;

import java.nio.ByteBuffer;

/**
 * Reads what conversion needs to know from a JPEG's marker segments before decoding it: the frame
 * size (to choose the DCT reduction) and whether the stream ends with an end-of-image marker after
 * its scan data (libjpeg decodes a truncated file with a warning and grey rows, so truncation must
 * be caught here). Pixels are decoded by OpenCV; this walks markers only.
 */
record JpegHeader(int height, int width, int components) {

    static boolean isJpeg(ByteBuffer data) {
        return data.limit() >= 3 && (data.get(0) & 0xFF) == 0xFF && (data.get(1) & 0xFF) == 0xD8
            && (data.get(2) & 0xFF) == 0xFF;
    }

    /**
     * Parses the header of a JPEG.
     *
     * @throws IllegalArgumentException naming what is wrong when the stream is malformed or truncated
     */
    static JpegHeader parse(ByteBuffer data) {
        int limit = data.limit();
        int pos = 2;
        JpegHeader frame = null;
        while (true) {
            if (pos + 4 > limit) {
                throw new IllegalArgumentException("truncated JPEG: header ends at byte " + limit);
            }
            if ((data.get(pos) & 0xFF) != 0xFF) {
                throw new IllegalArgumentException("corrupt JPEG: no marker at byte " + pos);
            }
            int marker = data.get(pos + 1) & 0xFF;
            if (marker == 0xFF) {
                pos++;
                continue;
            }
            if (marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0x01) {
                pos += 2;
                continue;
            }
            if (marker == 0xD9) {
                throw new IllegalArgumentException("corrupt JPEG: end of image before any scan");
            }
            int length = ((data.get(pos + 2) & 0xFF) << 8) | (data.get(pos + 3) & 0xFF);
            if (length < 2 || pos + 2 + length > limit) {
                throw new IllegalArgumentException("truncated JPEG: segment at byte " + pos + " runs past the end");
            }
            boolean startOfFrame = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
            if (startOfFrame) {
                if (length < 8) {
                    throw new IllegalArgumentException("corrupt JPEG: frame header too short");
                }
                int height = ((data.get(pos + 5) & 0xFF) << 8) | (data.get(pos + 6) & 0xFF);
                int width = ((data.get(pos + 7) & 0xFF) << 8) | (data.get(pos + 8) & 0xFF);
                int components = data.get(pos + 9) & 0xFF;
                if (height == 0 || width == 0) {
                    throw new IllegalArgumentException("JPEG frame is " + width + "x" + height
                        + " (a zero height needs a DNL marker, which is not supported)");
                }
                frame = new JpegHeader(height, width, components);
            }
            if (marker == 0xDA) {
                if (frame == null) {
                    throw new IllegalArgumentException("corrupt JPEG: scan before frame header");
                }
                // In entropy-coded data 0xFF is always followed by 0x00 or a marker, so the only
                // FF D9 after the first scan is the end-of-image marker (or trailing data after it).
                for (int i = limit - 2; i >= pos; i--) {
                    if ((data.get(i) & 0xFF) == 0xFF && (data.get(i + 1) & 0xFF) == 0xD9) {
                        return frame;
                    }
                }
                throw new IllegalArgumentException("truncated JPEG: no end-of-image marker after the scan data");
            }
            pos += 2 + length;
        }
    }
}
