package io.pinshard.writer.convert;

import io.pinshard.format.JpegFrame;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Iterator;
import javax.imageio.ImageIO;
import javax.imageio.ImageReader;
import javax.imageio.stream.ImageInputStream;
import javax.imageio.stream.MemoryCacheImageInputStream;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The size an encoded image declares in its header, read before any decoder allocates pixels from
 * it: the converter's decompression-bomb guard (a 2.6 MB PNG may declare 30000x30000, 2.7 GB decoded).
 * JPEG through the one marker parser ({@link JpegFrame#inspect}, which also checks the stream's
 * structure), PNG from its IHDR chunk, BMP, WebP (VP8, VP8L, VP8X) and PNM from their fixed headers,
 * TIFF through javax.imageio's TIFF reader, which reads the first directory only.
 *
 * @param height declared rows
 * @param width  declared columns
 * @param jpeg   the stream is a JPEG (its structure was checked)
 */
record ImageHeader(int height, int width, boolean jpeg) {

    long pixels() {
        return (long) height * width;
    }

    /**
     * Reads the header of {@code data} (positioned at 0, limit at the end), which starts with one of
     * the signatures {@link ImageSignature} accepts.
     *
     * @throws IllegalArgumentException naming what is wrong when the header is malformed or truncated
     */
    static ImageHeader read(ByteBuffer data) {
        int n = data.limit();
        int b0 = n > 0 ? data.get(0) & 0xFF : -1;
        ImageHeader header;
        if (b0 == 0xFF) {
            long frame = JpegFrame.inspect(new UnsafeBuffer(data, 0, n), 0, n);
            if (frame < 0) {
                throw new IllegalArgumentException(JpegFrame.problem(frame));
            }
            header = new ImageHeader(JpegFrame.height(frame), JpegFrame.width(frame), true);
        } else if (b0 == 0x89) {
            header = png(data);
        } else if (b0 == 'B') {
            header = bmp(data);
        } else if (b0 == 'R') {
            header = webp(data);
        } else if (b0 == 'P') {
            header = pnm(data);
        } else {
            header = tiff(data);
        }
        if (header.height <= 0 || header.width <= 0) {
            throw new IllegalArgumentException("image header declares " + header.width + "x" + header.height + " pixels");
        }
        return header;
    }

    private static ImageHeader png(ByteBuffer data) {
        // Signature (8), then the IHDR chunk: length 13, "IHDR", width, height (big-endian).
        ByteBuffer be = data.duplicate().order(ByteOrder.BIG_ENDIAN);
        if (be.limit() < 24 || be.getInt(8) != 13 || be.getInt(12) != 0x49484452) {
            throw new IllegalArgumentException("corrupt PNG: no IHDR chunk after the signature");
        }
        return new ImageHeader(clamp(be.getInt(20) & 0xFFFFFFFFL), clamp(be.getInt(16) & 0xFFFFFFFFL), false);
    }

    private static ImageHeader bmp(ByteBuffer data) {
        ByteBuffer le = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (le.limit() < 26) {
            throw new IllegalArgumentException("truncated BMP: header ends at byte " + le.limit());
        }
        if (le.getInt(14) == 12) { // OS/2 BITMAPCOREHEADER: 16-bit sizes
            return new ImageHeader(le.getShort(20) & 0xFFFF, le.getShort(18) & 0xFFFF, false);
        }
        int height = le.getInt(22);
        return new ImageHeader(height == Integer.MIN_VALUE ? Integer.MAX_VALUE : Math.abs(height), le.getInt(18), false);
    }

    private static ImageHeader webp(ByteBuffer data) {
        ByteBuffer le = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int n = le.limit();
        if (n >= 30 && le.getInt(12) == 0x58385056) { // "VP8X": 24-bit canvas width-1, height-1
            return new ImageHeader(uint24(le, 27) + 1, uint24(le, 24) + 1, false);
        }
        if (n >= 30 && le.getInt(12) == 0x20385056) { // "VP8 ": key frame start code, then 14-bit sizes
            return new ImageHeader(le.getShort(28) & 0x3FFF, le.getShort(26) & 0x3FFF, false);
        }
        if (n >= 25 && le.getInt(12) == 0x4C385056) { // "VP8L": signature 0x2F, then 14-bit width-1, height-1
            int bits = le.getInt(21);
            return new ImageHeader(((bits >>> 14) & 0x3FFF) + 1, (bits & 0x3FFF) + 1, false);
        }
        throw new IllegalArgumentException("corrupt WebP: no VP8, VP8L or VP8X header");
    }

    private static int uint24(ByteBuffer le, int at) {
        return (le.get(at) & 0xFF) | (le.get(at + 1) & 0xFF) << 8 | (le.get(at + 2) & 0xFF) << 16;
    }

    /** P1..P6: magic, then width and height as decimal text, with whitespace and # comments between. */
    private static ImageHeader pnm(ByteBuffer data) {
        int[] at = {2};
        long width = pnmNumber(data, at);
        long height = pnmNumber(data, at);
        return new ImageHeader(clamp(height), clamp(width), false);
    }

    private static long pnmNumber(ByteBuffer data, int[] at) {
        int n = data.limit();
        int i = at[0];
        while (i < n && (Character.isWhitespace(data.get(i)) || data.get(i) == '#')) {
            if (data.get(i) == '#') {
                while (i < n && data.get(i) != '\n' && data.get(i) != '\r') {
                    i++;
                }
            } else {
                i++;
            }
        }
        long value = 0;
        int digits = 0;
        while (i < n && data.get(i) >= '0' && data.get(i) <= '9' && digits < 12) {
            value = value * 10 + data.get(i++) - '0';
            digits++;
        }
        if (digits == 0) {
            throw new IllegalArgumentException("corrupt PNM: no image size in the header");
        }
        at[0] = i;
        return value;
    }

    private static ImageHeader tiff(ByteBuffer data) {
        byte[] bytes = new byte[data.limit()];
        data.duplicate().get(bytes);
        Iterator<ImageReader> readers = ImageIO.getImageReadersByFormatName("tiff");
        if (!readers.hasNext()) {
            throw new IllegalArgumentException("this JVM has no TIFF reader to check the image size");
        }
        ImageReader reader = readers.next();
        // In memory: ImageIO.createImageInputStream would cache to a temporary file.
        try (ImageInputStream in = new MemoryCacheImageInputStream(new ByteArrayInputStream(bytes))) {
            reader.setInput(in, true, true);
            return new ImageHeader(reader.getHeight(0), reader.getWidth(0), false);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("corrupt TIFF: its first directory cannot be read (" + e.getMessage() + ")");
        } finally {
            reader.dispose();
        }
    }

    private static int clamp(long value) {
        return value < 0 || value > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) value;
    }
}
