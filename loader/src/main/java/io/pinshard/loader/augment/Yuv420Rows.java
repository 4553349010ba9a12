package io.pinshard.loader.augment;

import io.pinshard.format.Bt601;
import io.pinshard.format.Yuv420Descriptor;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A yuv420 record's planes (SPEC.md section 6, {@link Yuv420Descriptor}) read as RGB rows, one box row at a time:
 * the crop reads only the box's luma and chroma bytes (JVM-guarded copies, so the planes may be a mapping) and
 * converts them ({@link Bt601}) into the caller's row buffer, which the bilinear pass reads next while it is in L1.
 * No RGB image is made. The row buffers grow to the widest row asked for and are reused: nothing is allocated per
 * crop once they have their size.
 */
public final class Yuv420Rows {
    private final UnsafeBuffer planes = new UnsafeBuffer(0, 0);
    private int width;
    private int chromaWidth;
    private int cbOffset;
    private int crOffset;
    private byte[] luma = new byte[0];
    private byte[] cb = new byte[0];
    private byte[] cr = new byte[0];

    /**
     * Points at a yuv420 payload of a {@code height x width} image; {@code payloadLength} must be the one
     * {@link Yuv420Descriptor#checkEntry} accepted for that shape.
     */
    public Yuv420Rows wrap(long payload, int payloadLength, int height, int width) {
        planes.wrap(payload, payloadLength);
        this.width = width;
        this.chromaWidth = (int) Yuv420Descriptor.chromaWidth(width);
        this.cbOffset = (int) Yuv420Descriptor.cbOffset(height, width);
        this.crOffset = (int) Yuv420Descriptor.crOffset(height, width);
        return this;
    }

    /** Writes {@code count} RGB pixels of image row {@code y}, from column {@code x}, to {@code rgb[at..]}. */
    public void rgbRow(int y, int x, int count, byte[] rgb, int at) {
        int chroma = chromaSamples(x, count);
        if (luma.length < count) {
            luma = new byte[count];
            cb = new byte[chroma + 1];
            cr = new byte[chroma + 1];
        }
        lumaRow(y, x, count, luma);
        chromaRow(y >> 1, x >> 1, chroma, cb, cr);
        Bt601.decodeRow(luma, 0, cb, 0, cr, 0, x, count, rgb, at);
    }

    /** How many chroma samples the pixels {@code [x, x + count)} of a row use. */
    public static int chromaSamples(int x, int count) {
        return ((x + count - 1) >> 1) - (x >> 1) + 1;
    }

    /** Copies {@code count} luma bytes of image row {@code y}, from column {@code x}, to {@code into[0..]}. */
    public void lumaRow(int y, int x, int count, byte[] into) {
        planes.getBytes(y * width + x, into, 0, count);
    }

    /**
     * Copies {@code samples} Cb and Cr bytes of chroma row {@code chromaRow}, from chroma column {@code first}, to
     * {@code cb[0..]} and {@code cr[0..]}.
     */
    public void chromaRow(int chromaRow, int first, int samples, byte[] cb, byte[] cr) {
        int at = chromaRow * chromaWidth + first;
        planes.getBytes(cbOffset + at, cb, 0, samples);
        planes.getBytes(crOffset + at, cr, 0, samples);
    }
}
