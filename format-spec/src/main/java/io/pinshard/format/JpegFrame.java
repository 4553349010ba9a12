package io.pinshard.format;

import org.agrona.DirectBuffer;

/**
 * Reads a JPEG payload's frame header (SOF) without decoding it, so a reader can compare the
 * stream's own size and component count with the index entry <em>before</em> a decoder allocates
 * anything from the stream's numbers (SPEC.md, section 14). Allocation-free; the result is packed
 * into one long.
 */
public final class JpegFrame {
    /** Returned when the payload is not a JPEG stream with a frame header before its first scan. */
    public static final long MALFORMED = -1;

    private static final int MARKER = 0xFF;
    private static final int SOI = 0xD8;
    private static final int EOI = 0xD9;
    private static final int SOS = 0xDA;

    private JpegFrame() {
    }

    /**
     * The frame of the JPEG stream in {@code [offset, offset + length)} of {@code buffer}, packed as
     * {@code height << 32 | width << 8 | components}, or {@link #MALFORMED}. The stream must start
     * with SOI and end with EOI.
     */
    public static long read(DirectBuffer buffer, int offset, int length) {
        int end = offset + length;
        if (length < 4 || byteAt(buffer, offset) != MARKER || byteAt(buffer, offset + 1) != SOI
            || byteAt(buffer, end - 2) != MARKER || byteAt(buffer, end - 1) != EOI) {
            return MALFORMED;
        }
        int at = offset + 2;
        while (at < end) {
            if (byteAt(buffer, at) != MARKER) {
                return MALFORMED;
            }
            while (at < end && byteAt(buffer, at) == MARKER) {
                at++; // fill bytes
            }
            if (at >= end) {
                return MALFORMED;
            }
            int marker = byteAt(buffer, at++);
            if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {
                continue; // TEM and RSTn stand alone
            }
            if (marker == SOS || marker == EOI || end - at < 2) {
                return MALFORMED; // a scan or the end before any frame header
            }
            int segment = (byteAt(buffer, at) << 8) | byteAt(buffer, at + 1);
            if (segment < 2 || segment > end - at) {
                return MALFORMED;
            }
            if (isStartOfFrame(marker)) {
                if (segment < 8) {
                    return MALFORMED;
                }
                long height = (byteAt(buffer, at + 3) << 8) | byteAt(buffer, at + 4);
                long width = (byteAt(buffer, at + 5) << 8) | byteAt(buffer, at + 6);
                return height << 32 | width << 8 | byteAt(buffer, at + 7);
            }
            at += segment;
        }
        return MALFORMED;
    }

    public static int height(long frame) {
        return (int) (frame >>> 32);
    }

    public static int width(long frame) {
        return (int) (frame >>> 8) & 0xFFFFFF;
    }

    public static int components(long frame) {
        return (int) frame & 0xFF;
    }

    /** SOF0..SOF15, except DHT (C4), JPG (C8) and DAC (CC), which share the range. */
    private static boolean isStartOfFrame(int marker) {
        return marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    }

    private static int byteAt(DirectBuffer buffer, int index) {
        return buffer.getByte(index) & 0xFF;
    }
}
