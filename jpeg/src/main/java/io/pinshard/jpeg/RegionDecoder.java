package io.pinshard.jpeg;

import static io.pinshard.jpeg.JpegResultDescriptor.ARGUMENT;
import static io.pinshard.jpeg.JpegResultDescriptor.COMPONENTS;
import static io.pinshard.jpeg.JpegResultDescriptor.CORRUPT;
import static io.pinshard.jpeg.JpegResultDescriptor.IMAGE_HEIGHT;
import static io.pinshard.jpeg.JpegResultDescriptor.IMAGE_WIDTH;
import static io.pinshard.jpeg.JpegResultDescriptor.MESSAGE_OFFSET;
import static io.pinshard.jpeg.JpegResultDescriptor.OK;
import static io.pinshard.jpeg.JpegResultDescriptor.PROGRESSIVE;
import static io.pinshard.jpeg.JpegResultDescriptor.REGION_WIDTH;
import static io.pinshard.jpeg.JpegResultDescriptor.REGION_X;
import static io.pinshard.jpeg.JpegResultDescriptor.SCALED_HEIGHT;
import static io.pinshard.jpeg.JpegResultDescriptor.SCALED_WIDTH;
import static io.pinshard.jpeg.JpegResultDescriptor.STREAM_BYTES;
import static io.pinshard.jpeg.JpegResultDescriptor.UNSUPPORTED;
import static io.pinshard.jpeg.JpegResultDescriptor.WARNINGS;
import static io.pinshard.jpeg.JpegResultDescriptor.WARNING_OFFSET;

import java.nio.ByteBuffer;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * libjpeg-turbo's region and M/8-scaled decode ({@code jpeg_crop_scanline}, {@code jpeg_skip_scanlines},
 * {@code scale_num / 8}) into memory the caller owns; available when {@link TurboJpeg#available} says so. The
 * source must be a copy the JVM made (a file mapping would crash libjpeg when the file is truncated); the
 * destination's capacity is checked before the first row is written; a hostile stream returns
 * {@link Status#CORRUPT} with libjpeg's text. One per thread; a call allocates nothing once the cut scratch has
 * the size of the largest stream.
 *
 * <p>A stream with restart markers every k MCUs, k dividing a row's MCUs (what {@link JpegEncoder} writes), is
 * first cut to the restart intervals around the region ({@code pinshard_jpeg_cut.h}): libjpeg's Huffman decoder
 * then reads only those, not every row above the region and every column beside it.
 * {@code -D}{@value #CUT_PROPERTY}{@code =false} turns the cut off (to measure it).
 */
public final class RegionDecoder implements AutoCloseable {
    /** System property: {@code false} decodes every stream as it is, without the restart-interval cut. */
    public static final String CUT_PROPERTY = "pinshard.jpeg.cut";
    private static final boolean CUT = !"false".equalsIgnoreCase(System.getProperty(CUT_PROPERTY, "true").trim());
    private static final int MIN_CUT_SCRATCH = 1 << 16;
    /** Longer streams decode as they are: their cut would not fit in one direct buffer. */
    private static final int MAX_CUT_STREAM = Integer.MAX_VALUE - 16;

    /** Output pixels. */
    public enum Format {
        GREY(1, 1), RGB(3, 3), BGR(4, 3);

        final int code;
        /** Bytes per pixel. */
        public final int channels;

        Format(int code, int channels) {
            this.code = code;
            this.channels = channels;
        }
    }

    /** How a decode ended. */
    public enum Status {
        OK,
        /** Not a 1- or 3-component stream (CMYK, YCCK): decode it some other way. */
        UNSUPPORTED,
        /** libjpeg refused the stream ({@link #problem()} says why). */
        CORRUPT,
        /** The region, scale or destination does not fit the stream ({@link #problem()} says how). */
        ARGUMENT
    }

    private static final Status[] STATUSES = Status.values();

    private final ByteBuffer memory = ByteBuffer.allocateDirect(JpegResultDescriptor.LENGTH);
    private final UnsafeBuffer result = new UnsafeBuffer(memory);
    private final boolean cut;
    private ByteBuffer cutScratch;
    private boolean closed;

    public RegionDecoder() {
        this(0);
    }

    /** A decoder whose cut scratch holds streams of up to {@code streamCapacity} bytes from the start. */
    public RegionDecoder(long streamCapacity) {
        this(streamCapacity, CUT);
    }

    /** With {@code cut} false, never the restart-interval cut (tests compare the two). */
    RegionDecoder(long streamCapacity, boolean cut) {
        this.cut = cut;
        if (cut) {
            cutScratch(streamCapacity);
        }
    }

    /**
     * The address of cut scratch for a stream of {@code length} bytes (grown when smaller: length + 2, at least
     * 64 KiB), or 0 for a stream too long to cut or of no bytes.
     */
    private long cutScratch(long length) {
        if (length <= 0 || length > MAX_CUT_STREAM) {
            return 0;
        }
        if (cutScratch == null || cutScratch.capacity() < length + 2) {
            if (cutScratch != null) {
                BufferUtil.free(cutScratch);
            }
            cutScratch = ByteBuffer.allocateDirect((int) Math.max(MIN_CUT_SCRATCH, length + 2));
        }
        return BufferUtil.address(cutScratch);
    }

    /** Scaled size of an image side of {@code side} pixels at {@code scale}/8, as libjpeg computes it (rounded up). */
    public static int scaledSide(int side, int scale) {
        return (int) (((long) side * scale + 7) / 8);
    }

    /**
     * Decodes rows {@code [y, y + height)} and at least columns {@code [x, x + width)} of the image at
     * {@code scale}/8 (1..8; coordinates in scaled pixels) to {@code destination}, rows {@code stride} bytes
     * apart, {@code capacity} bytes in all. Columns widen to the iMCU grid: row pixel 0 is column
     * {@link #regionX()}, {@link #regionWidth()} columns were written.
     */
    public Status decode(long source, int length, int scale, int x, int y, int width, int height, Format format,
        long destination, long stride, long capacity) {
        return decode(source, length, scale, x, y, width, height, format, destination, stride, capacity, cut);
    }

    private Status decode(long source, int length, int scale, int x, int y, int width, int height, Format format,
        long destination, long stride, long capacity, boolean cutAllowed) {
        if (closed) {
            throw new IllegalStateException("region decoder is closed");
        }
        if (destination == 0 || source == 0) {
            throw new IllegalArgumentException("null address");
        }
        long scratch = cutAllowed ? cutScratch(length) : 0;
        int status = LibJpeg.pinshard_jpeg_decode(source, length, scale, x, y, width, height, format.code, destination,
            stride, capacity, scratch, scratch == 0 ? 0 : cutScratch.capacity(), result.addressOffset(),
            result.addressOffset() + MESSAGE_OFFSET);
        if (status < OK || status > ARGUMENT) {
            throw new IllegalStateException("libjpeg binding returned status " + status);
        }
        if (status == OK && (regionX() > x || regionX() + regionWidth() < x + width)) {
            throw new IllegalStateException("libjpeg decoded columns " + regionX() + ".." + (regionX() + regionWidth())
                + ", not the asked " + x + ".." + (x + width));
        }
        return STATUSES[status];
    }

    /**
     * Decodes the whole image at {@code scale}/8 (see
     * {@link #decode(long, int, int, int, int, int, int, Format, long, long, long)}; nothing to cut).
     */
    public Status decodeWhole(long source, int length, int scale, int scaledHeight, int scaledWidth, Format format,
        long destination, long stride, long capacity) {
        return decode(source, length, scale, 0, 0, scaledWidth, scaledHeight, format, destination, stride, capacity,
            false);
    }

    public int imageWidth() { return result.getInt(IMAGE_WIDTH); }
    public int imageHeight() { return result.getInt(IMAGE_HEIGHT); }
    public int components() { return result.getInt(COMPONENTS); }
    public boolean progressive() { return result.getInt(PROGRESSIVE) != 0; }
    public int scaledWidth() { return result.getInt(SCALED_WIDTH); }
    public int scaledHeight() { return result.getInt(SCALED_HEIGHT); }
    /** First decoded column (scaled pixels), at or left of the asked one. */
    public int regionX() { return result.getInt(REGION_X); }
    public int regionWidth() { return result.getInt(REGION_WIDTH); }
    /**
     * Bytes of stream libjpeg read in the last decode: those of the restart-interval cut around the region when
     * there was one, else the stream's length.
     */
    public int streamBytes() { return result.getInt(STREAM_BYTES); }
    /** libjpeg's warnings in the last decode (corrupt data it decoded anyway, e.g. a scan cut short). */
    public int warnings() { return result.getInt(WARNINGS); }

    /** Why the last decode did not end {@link Status#OK} (allocates: error path only). */
    public String problem() {
        return text(MESSAGE_OFFSET);
    }

    /** libjpeg's first warning in the last decode, or null (allocates). */
    public String firstWarning() {
        return warnings() == 0 ? null : text(WARNING_OFFSET);
    }

    private String text(int offset) {
        return JpegResultDescriptor.message(result, offset);
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            BufferUtil.free(memory);
            if (cutScratch != null) {
                BufferUtil.free(cutScratch);
            }
        }
    }

    static {
        if (CORRUPT != 2 || UNSUPPORTED != 1) {
            throw new AssertionError("Status order must follow JpegResultDescriptor's codes");
        }
    }
}
