package io.pinshard.format;

import io.pinshard.format.ShardFormatException.Kind;

/**
 * Layout of a {@link Codec#YUV420} payload (SPEC.md section 6): three planes, no padding, no header.
 *
 * <pre>
 *  offset 0                      Y  (luma)      height x width bytes, row-major
 *  offset height * width         Cb (U)         ceil(height/2) x ceil(width/2) bytes, row-major
 *  offset + ceil(h/2)*ceil(w/2)  Cr (V)         ceil(height/2) x ceil(width/2) bytes, row-major
 * </pre>
 *
 * Chroma sample {@code (i, j)} belongs to the 2 x 2 block of pixels {@code (2i..2i+1, 2j..2j+1)} (those of them inside
 * the image: an odd last row or column has blocks of 2 or 1 pixels) and is sited at the block's centre, as in JFIF. The
 * record decodes to {@code height x width x 3} RGB ({@link Bt601}); {@code channels} is always 3.
 */
public final class Yuv420Descriptor {
    /** The only channel count of a yuv420 record: it decodes to RGB. */
    public static final int CHANNELS = 3;

    private Yuv420Descriptor() {
    }

    /** Columns of a chroma plane: {@code ceil(width / 2)}. */
    public static long chromaWidth(long width) {
        return (width + 1) >> 1;
    }

    /** Rows of a chroma plane: {@code ceil(height / 2)}. */
    public static long chromaHeight(long height) {
        return (height + 1) >> 1;
    }

    /** Offset of the Cb plane in the payload: the luma plane's size. */
    public static long cbOffset(long height, long width) {
        return height * width;
    }

    /** Offset of the Cr plane in the payload. */
    public static long crOffset(long height, long width) {
        return cbOffset(height, width) + chromaHeight(height) * chromaWidth(width);
    }

    /** The payload length of a {@code height x width} yuv420 record: {@code h*w + 2 * ceil(h/2) * ceil(w/2)}. */
    public static long payloadLength(long height, long width) {
        return cbOffset(height, width) + 2 * chromaHeight(height) * chromaWidth(width);
    }

    /**
     * Checks a yuv420 entry's channels and payload length against its (already range-checked) height and width
     * (SPEC.md section 14, step 10i): what the planes' offsets are computed from.
     */
    public static void checkEntry(long height, long width, int channels, long payloadLength) {
        if (channels != CHANNELS) {
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY, "yuv420 records decode to 3 channels, not " + channels);
        }
        long expected = payloadLength(height, width);
        if (payloadLength != expected) {
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY, "yuv420 payload holds " + payloadLength + " bytes but "
                + height + "x" + width + " needs " + expected + " (Y " + height * width + " + Cb and Cr "
                + chromaHeight(height) + "x" + chromaWidth(width) + " each)");
        }
    }
}
