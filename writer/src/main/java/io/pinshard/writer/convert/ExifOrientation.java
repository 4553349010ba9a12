package io.pinshard.writer.convert;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The EXIF orientation tag (0x0112) of a JPEG stream's first "Exif" APP1 segment, read before decoding: the
 * converter's libjpeg-turbo path stores the frame as it is, so it takes only images whose orientation is 1
 * (or absent) and leaves the rest to OpenCV, which turns them. Every offset is checked against the stream;
 * anything malformed answers {@link #UNKNOWN} (OpenCV then decides, as it did before).
 */
final class ExifOrientation {
    /** No usable answer: malformed segment or TIFF structure, or a value outside 1..8. */
    static final int UNKNOWN = 0;
    private static final int TAG = 0x0112;
    private static final int SHORT = 3;

    private ExifOrientation() {
    }

    /** 1..8 for {@code data} (a JPEG stream from position 0 to its limit), 1 when it carries no EXIF orientation. */
    static int of(ByteBuffer data) {
        int n = data.limit();
        int p = 2; // after SOI
        while (p + 4 <= n) {
            if ((data.get(p) & 0xFF) != 0xFF) {
                return 1; // not a marker where one must be: JpegFrame has judged the structure, nothing more here
            }
            int marker = data.get(p + 1) & 0xFF;
            if (marker == 0xFF) {
                p++;
                continue;
            }
            if (marker == 0xDA || marker == 0xD9) {
                return 1; // scan data or the end: no EXIF before them
            }
            if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {
                p += 2;
                continue;
            }
            int length = ((data.get(p + 2) & 0xFF) << 8) | (data.get(p + 3) & 0xFF);
            if (length < 2 || (long) p + 2 + length > n) {
                return UNKNOWN;
            }
            if (marker == 0xE1 && length >= 8 && data.get(p + 4) == 'E' && data.get(p + 5) == 'x'
                && data.get(p + 6) == 'i' && data.get(p + 7) == 'f' && data.get(p + 8) == 0 && data.get(p + 9) == 0) {
                return tiff(data, p + 10, p + 2 + length);
            }
            p += 2 + length;
        }
        return 1;
    }

    /** The orientation in the TIFF structure at {@code [start, end)}: IFD0's tag 0x0112. */
    private static int tiff(ByteBuffer data, int start, int end) {
        if (end - start < 8) {
            return UNKNOWN;
        }
        ByteOrder order;
        if (data.get(start) == 'I' && data.get(start + 1) == 'I') {
            order = ByteOrder.LITTLE_ENDIAN;
        } else if (data.get(start) == 'M' && data.get(start + 1) == 'M') {
            order = ByteOrder.BIG_ENDIAN;
        } else {
            return UNKNOWN;
        }
        ByteBuffer tiff = data.duplicate().order(order);
        if ((tiff.getShort(start + 2) & 0xFFFF) != 42) {
            return UNKNOWN;
        }
        long ifd = start + (tiff.getInt(start + 4) & 0xFFFFFFFFL);
        if (ifd + 2 > end) {
            return UNKNOWN;
        }
        int entries = tiff.getShort((int) ifd) & 0xFFFF;
        for (int i = 0; i < entries; i++) {
            long entry = ifd + 2 + 12L * i;
            if (entry + 12 > end) {
                return UNKNOWN;
            }
            if ((tiff.getShort((int) entry) & 0xFFFF) == TAG) {
                int value = tiff.getShort((int) entry + 8) & 0xFFFF;
                boolean valid = (tiff.getShort((int) entry + 2) & 0xFFFF) == SHORT && value >= 1 && value <= 8;
                return valid ? value : UNKNOWN;
            }
        }
        return 1;
    }
}
