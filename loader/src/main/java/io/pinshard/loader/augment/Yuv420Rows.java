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
        int firstChroma = x >> 1;
        int chroma = ((x + count - 1) >> 1) - firstChroma + 1;
        if (luma.length < count) {
            luma = new byte[count];
            cb = new byte[chroma + 1];
            cr = new byte[chroma + 1];
        }
        planes.getBytes(y * width + x, luma, 0, count);
        int chromaRow = (y >> 1) * chromaWidth + firstChroma;
        planes.getBytes(cbOffset + chromaRow, cb, 0, chroma);
        planes.getBytes(crOffset + chromaRow, cr, 0, chroma);
        Bt601.decodeRow(luma, 0, cb, 0, cr, 0, x, count, rgb, at);
    }
}
