package io.pinshard.format;

import org.agrona.DirectBuffer;

/**
 * The one JPEG marker parser: reads a JPEG stream's frame header (SOF) without decoding it, so a
 * reader can compare the stream's own size and component count with the index entry <em>before</em>
 * a decoder allocates anything from the stream's numbers (SPEC.md, section 14), and the converter can
 * check an input's declared size against its pixel limit and its structure before decoding it.
 * Allocation-free; a frame is packed into one long, a problem is a negative code that
 * {@link #problem(long)} describes.
 *
 * <p>{@link #read} walks the marker segments up to the frame header (the reader's check, per
 * record). {@link #inspect} walks the whole stream, the entropy-coded data of every scan included:
 * inside scan data an 0xFF byte must be followed by 0x00 (a stuffed byte), a restart marker (RST0..7,
 * in sequence) or a marker that ends the scan; every scan must hold data; the stream must reach its
 * end-of-image marker (bytes after it are ignored, as libjpeg does), and by then the scans must have
 * covered every coefficient of every component at full precision (so a progressive file cut and given
 * an end marker again is found unless the cut lies in its last scan). It also checks what a decoder builds
 * tables from before it decodes (libjpeg refuses the same): Huffman tables (class, id, code counts that fit their
 * code lengths, DC symbols up to 15), quantisation tables, the frame's components (1 to 4, sampling factors 1 to 4)
 * and each scan header's components and table ids. NVIDIA's nvJPEG crashed (SIGSEGV) on a stream whose scan held only
 * 0xFF fill bytes, so a payload passes this walk before a GPU decoder sees it. What it cannot see is the last scan cut short
 * and followed by an appended end-of-image marker, or scan data corrupted without breaking its byte structure: only
 * entropy decoding finds those.
 */
public final class JpegFrame {
    /** Returned by {@link #read} when the payload is not a JPEG stream with a frame header before its first scan. */
    public static final long MALFORMED = -1;
    /** {@link #inspect}: the stream does not start with a start-of-image marker. */
    public static final long NOT_JPEG = -2;
    /** {@link #inspect}: a marker segment runs past the end of the stream. */
    public static final long SEGMENT_PAST_END = -3;
    /** {@link #inspect}: bytes where a marker must be, or a marker code that does not exist. */
    public static final long NO_MARKER = -4;
    /** {@link #inspect}: a scan starts before any frame header. */
    public static final long SCAN_BEFORE_FRAME = -5;
    /** {@link #inspect}: the frame header is too short, declares a zero size, or appears twice. */
    public static final long BAD_FRAME = -6;
    /** {@link #inspect}: inside scan data, 0xFF followed by a byte that is no stuffing, restart or marker. */
    public static final long BAD_SCAN_BYTE = -7;
    /** {@link #inspect}: restart markers out of sequence (RST0..RST7, then RST0 again). */
    public static final long RESTART_OUT_OF_ORDER = -8;
    /** {@link #inspect}: a scan holds no entropy-coded data. */
    public static final long EMPTY_SCAN = -9;
    /** {@link #inspect}: the data ends before the end-of-image marker. */
    public static final long NO_END = -10;
    /** {@link #inspect}: the end-of-image marker comes before any scan. */
    public static final long NO_SCAN = -11;
    /**
     * {@link #inspect}: the end-of-image marker comes before the scans have covered every coefficient
     * of every component: a truncated file given an end marker again (progressive files lose scans).
     */
    public static final long SCANS_MISSING = -12;
    /**
     * {@link #inspect}: a Huffman table (DHT) or quantisation table (DQT) is malformed: a class or id out of range,
     * code counts that overflow their lengths or run past the segment, a DC symbol over 15, a table cut short.
     */
    public static final long BAD_TABLE = -13;
    /** {@link #inspect}: a scan header (SOS) of the wrong length, or naming a component or table that cannot exist. */
    public static final long BAD_SCAN_HEADER = -14;

    private static final int MARKER = 0xFF;
    private static final int SOI = 0xD8;
    private static final int EOI = 0xD9;
    private static final int SOS = 0xDA;
    private static final int DHT = 0xC4;
    private static final int DQT = 0xDB;
    private static final int TEM = 0x01;
    private static final int RST0 = 0xD0;
    private static final int RST7 = 0xD7;

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
        long frame = walk(buffer, offset + 2, end, false);
        return frame < 0 ? MALFORMED : frame;
    }

    /**
     * Walks the whole JPEG stream in {@code [offset, offset + length)}: its frame (packed as by
     * {@link #read}) when the stream is structurally sound, else one of the negative codes of this class.
     */
    public static long inspect(DirectBuffer buffer, int offset, int length) {
        if (length < 2 || byteAt(buffer, offset) != MARKER || byteAt(buffer, offset + 1) != SOI) {
            return NOT_JPEG;
        }
        return walk(buffer, offset + 2, offset + length, true);
    }

    /** What a negative code of {@link #inspect} means, as a sentence for a rejection reason. */
    public static String problem(long code) {
        return switch ((int) code) {
            case (int) MALFORMED -> "malformed JPEG: no frame header before the first scan";
            case (int) NOT_JPEG -> "not a JPEG: no start-of-image marker";
            case (int) SEGMENT_PAST_END -> "truncated JPEG: a marker segment runs past the end of the data";
            case (int) NO_MARKER -> "corrupt JPEG: bytes that are no marker where a marker must be";
            case (int) SCAN_BEFORE_FRAME -> "corrupt JPEG: a scan before the frame header";
            case (int) BAD_FRAME -> "corrupt JPEG: the frame header is too short, repeated, or declares a zero height or"
                + " width (DNL is not supported)";
            case (int) BAD_SCAN_BYTE -> "corrupt JPEG: an 0xFF inside scan data is followed by no stuffing, restart or"
                + " marker byte";
            case (int) RESTART_OUT_OF_ORDER -> "corrupt JPEG: restart markers out of sequence";
            case (int) EMPTY_SCAN -> "corrupt JPEG: a scan holds no data";
            case (int) NO_END -> "truncated JPEG: no end-of-image marker after the scan data";
            case (int) NO_SCAN -> "corrupt JPEG: end of image before any scan";
            case (int) SCANS_MISSING -> "truncated JPEG: end of image before the scans cover every component and"
                + " coefficient (scans are missing)";
            case (int) BAD_TABLE -> "corrupt JPEG: a malformed Huffman or quantisation table";
            case (int) BAD_SCAN_HEADER -> "corrupt JPEG: a scan header of the wrong length or naming a component or"
                + " table that does not exist";
            default -> "JPEG frame " + width(code) + "x" + height(code) + " with " + components(code) + " components";
        };
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

    /**
     * Walks marker segments from {@code at} (just after SOI). Header mode returns at the first frame
     * header; scan mode walks every scan's entropy-coded data up to EOI.
     */
    private static long walk(DirectBuffer buffer, int at, int end, boolean scans) {
        long frame = -1;
        boolean scanned = false;
        long componentIds = 0; // up to four component ids, one per byte; coverage tracked for those only
        int tracked = 0;
        long covered0 = 0;
        long covered1 = 0;
        long covered2 = 0;
        long covered3 = 0;
        while (at < end) {
            if (byteAt(buffer, at) != MARKER) {
                return scans ? NO_MARKER : MALFORMED;
            }
            while (at < end && byteAt(buffer, at) == MARKER) {
                at++; // fill bytes
            }
            if (at >= end) {
                return scans ? NO_END : MALFORMED;
            }
            int marker = byteAt(buffer, at++);
            if (marker == TEM || (marker >= RST0 && marker <= RST7)) {
                continue; // TEM and RSTn stand alone
            }
            if (marker == EOI) {
                if (!scans) {
                    return MALFORMED;
                }
                if (!scanned) {
                    return NO_SCAN;
                }
                boolean complete = (tracked < 1 || covered0 == -1L) && (tracked < 2 || covered1 == -1L)
                    && (tracked < 3 || covered2 == -1L) && (tracked < 4 || covered3 == -1L);
                return complete ? frame : SCANS_MISSING;
            }
            if (marker < 0xC0 || marker == SOI) {
                return scans ? NO_MARKER : MALFORMED;
            }
            if (end - at < 2) {
                return scans ? SEGMENT_PAST_END : MALFORMED;
            }
            int segment = (byteAt(buffer, at) << 8) | byteAt(buffer, at + 1);
            if (segment < 2 || segment > end - at) {
                return scans ? SEGMENT_PAST_END : MALFORMED;
            }
            if (isStartOfFrame(marker)) {
                if (segment < 8) {
                    return scans ? BAD_FRAME : MALFORMED;
                }
                long height = (byteAt(buffer, at + 3) << 8) | byteAt(buffer, at + 4);
                long width = (byteAt(buffer, at + 5) << 8) | byteAt(buffer, at + 6);
                long packed = height << 32 | width << 8 | byteAt(buffer, at + 7);
                if (!scans) {
                    return packed;
                }
                if (frame >= 0 || height == 0 || width == 0) {
                    return BAD_FRAME;
                }
                frame = packed;
                int count = byteAt(buffer, at + 7);
                if (!validFrameComponents(buffer, at, segment)) {
                    return BAD_FRAME;
                }
                tracked = count;
                for (int i = 0; i < count; i++) {
                    componentIds |= (long) byteAt(buffer, at + 8 + 3 * i) << (8 * i);
                }
            }
            if (scans && (marker == DHT && !validHuffmanTables(buffer, at + 2, at + segment)
                || marker == DQT && !validQuantisationTables(buffer, at + 2, at + segment))) {
                return BAD_TABLE;
            }
            if (marker == SOS && scans && frame >= 0) {
                if (!validScanHeader(buffer, at, segment, componentIds, tracked)) {
                    return BAD_SCAN_HEADER;
                }
                // Ns, then Ns (component, tables) pairs, then Ss, Se, Ah/Al (the length checked above).
                int count = byteAt(buffer, at + 2);
                int ss = byteAt(buffer, at + 3 + 2 * count);
                int se = byteAt(buffer, at + 4 + 2 * count);
                int al = byteAt(buffer, at + 5 + 2 * count) & 0x0F;
                long coefficients = al != 0 || ss > se || se > 63 ? 0
                    : (se == 63 ? -1L : (1L << (se + 1)) - 1) & -(1L << ss);
                for (int i = 0; i < count; i++) {
                    int components = componentsWithId(componentIds, tracked, byteAt(buffer, at + 3 + 2 * i));
                    covered0 |= (components & 1) != 0 ? coefficients : 0;
                    covered1 |= (components & 2) != 0 ? coefficients : 0;
                    covered2 |= (components & 4) != 0 ? coefficients : 0;
                    covered3 |= (components & 8) != 0 ? coefficients : 0;
                }
            }
            at += segment;
            if (marker == SOS) {
                if (!scans || frame < 0) {
                    return scans ? SCAN_BEFORE_FRAME : MALFORMED;
                }
                at = skipScanData(buffer, at, end);
                if (at < 0) {
                    return at;
                }
                scanned = true;
            }
        }
        return scans ? NO_END : MALFORMED;
    }

    /**
     * Skips one scan's entropy-coded data from {@code at}; returns the index of the 0xFF of the marker
     * that ends it, or a negative code.
     */
    private static int skipScanData(DirectBuffer buffer, int at, int end) {
        int nextRestart = 0;
        boolean data = false;
        while (at < end) {
            // Eight bytes at a time while none of them is 0xFF (scan data is mostly anything else).
            while (at + Long.BYTES <= end && !hasFfByte(buffer.getLong(at))) {
                data = true;
                at += Long.BYTES;
            }
            if (at >= end) {
                break;
            }
            if (byteAt(buffer, at) != MARKER) {
                data = true;
                at++;
                continue;
            }
            int next = at + 1;
            while (next < end && byteAt(buffer, next) == MARKER) {
                next++; // fill bytes before a marker
            }
            if (next >= end) {
                return (int) NO_END;
            }
            int code = byteAt(buffer, next);
            if (code == 0x00 && next == at + 1) {
                data = true;
                at += 2;
            } else if (code >= RST0 && code <= RST7) {
                if (code - RST0 != nextRestart) {
                    return (int) RESTART_OUT_OF_ORDER;
                }
                nextRestart = (nextRestart + 1) & 7;
                at = next + 1;
            } else if (code >= 0xC0 && code != SOI) {
                return data ? next - 1 : (int) EMPTY_SCAN;
            } else {
                return (int) BAD_SCAN_BYTE;
            }
        }
        return (int) NO_END;
    }

    /** SOF at {@code at} (its length field): 1 to 4 components, 3 bytes each, sampling factors 1 to 4, tables 0 to 3. */
    private static boolean validFrameComponents(DirectBuffer buffer, int at, int segment) {
        int count = byteAt(buffer, at + 7);
        if (count < 1 || count > 4 || segment != 8 + 3 * count) {
            return false;
        }
        for (int i = 0; i < count; i++) {
            int sampling = byteAt(buffer, at + 9 + 3 * i);
            int horizontal = sampling >>> 4;
            int vertical = sampling & 0x0F;
            if (horizontal < 1 || horizontal > 4 || vertical < 1 || vertical > 4 || byteAt(buffer, at + 10 + 3 * i) > 3) {
                return false;
            }
        }
        return true;
    }

    /**
     * The DHT tables in {@code [at, end)}: class 0 or 1, id 0 to 3, 16 code counts whose canonical codes fit their
     * lengths (libjpeg's "bogus Huffman table" check), the symbols inside the segment, DC symbols up to 15.
     */
    private static boolean validHuffmanTables(DirectBuffer buffer, int at, int end) {
        if (at >= end) {
            return false;
        }
        while (at < end) {
            if (end - at < 17) {
                return false;
            }
            int classAndId = byteAt(buffer, at);
            if ((classAndId >>> 4) > 1 || (classAndId & 0x0F) > 3) {
                return false;
            }
            int symbols = 0;
            long code = 0;
            for (int length = 1; length <= 16; length++) {
                int codes = byteAt(buffer, at + length);
                symbols += codes;
                code += codes;
                if (code > (1L << length)) {
                    return false;
                }
                code <<= 1;
            }
            if (symbols > 256 || symbols > end - at - 17) {
                return false;
            }
            if ((classAndId >>> 4) == 0) {
                for (int i = 0; i < symbols; i++) {
                    if (byteAt(buffer, at + 17 + i) > 15) {
                        return false;
                    }
                }
            }
            at += 17 + symbols;
        }
        return true;
    }

    /** The DQT tables in {@code [at, end)}: precision 0 (bytes) or 1 (16-bit), id 0 to 3, 64 values each. */
    private static boolean validQuantisationTables(DirectBuffer buffer, int at, int end) {
        if (at >= end) {
            return false;
        }
        while (at < end) {
            int precisionAndId = byteAt(buffer, at);
            int precision = precisionAndId >>> 4;
            if (precision > 1 || (precisionAndId & 0x0F) > 3 || end - at < 1 + 64 * (precision + 1)) {
                return false;
            }
            at += 1 + 64 * (precision + 1);
        }
        return true;
    }

    /** SOS at {@code at}: 1 to 4 components of the frame, its exact length, table ids 0 to 3. */
    private static boolean validScanHeader(DirectBuffer buffer, int at, int segment, long componentIds, int tracked) {
        int count = segment >= 3 ? byteAt(buffer, at + 2) : 0;
        if (count < 1 || count > 4 || segment != 6 + 2 * count) {
            return false;
        }
        for (int i = 0; i < count; i++) {
            int tables = byteAt(buffer, at + 4 + 2 * i);
            if (componentsWithId(componentIds, tracked, byteAt(buffer, at + 3 + 2 * i)) == 0
                || (tables >>> 4) > 3 || (tables & 0x0F) > 3) {
                return false;
            }
        }
        return true;
    }

    /** The frame's components whose id is {@code id}, bit c for component c (ids packed one per byte). */
    private static int componentsWithId(long componentIds, int tracked, int id) {
        int components = 0;
        for (int c = 0; c < tracked; c++) {
            if (((componentIds >>> (8 * c)) & 0xFF) == id) {
                components |= 1 << c;
            }
        }
        return components;
    }

    /** Whether any byte of {@code word} is 0xFF: the zero-byte test of {@code ~word}. */
    private static boolean hasFfByte(long word) {
        return ((~word - 0x0101010101010101L) & word & 0x8080808080808080L) != 0;
    }

    /** SOF0..SOF15, except DHT (C4), JPG (C8) and DAC (CC), which share the range. */
    private static boolean isStartOfFrame(int marker) {
        return marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    }

    private static int byteAt(DirectBuffer buffer, int index) {
        return buffer.getByte(index) & 0xFF;
    }
}
