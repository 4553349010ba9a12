package io.pinshard.format;

/**
 * BT.601 full-range YCbCr as JFIF (and libjpeg) defines it, in 16-bit fixed point: the one home of the
 * {@link Codec#YUV420} colour conversion (SPEC.md section 6). Decoding is normative and integer-exact; every reader
 * (the loader's kernels included) must produce these bytes. Encoding is what pinshard's writers store.
 *
 * <pre>
 *  decode, cb = Cb - 128, cr = Cr - 128, {@code >>} an arithmetic (flooring) shift, clamp to 0..255:
 *    R = clamp(Y + ((91881 * cr + 32768) >> 16))
 *    G = clamp(Y + ((-22554 * cb - 46802 * cr + 32768) >> 16))
 *    B = clamp(Y + ((116130 * cb + 32768) >> 16))
 *  encode, per pixel, and per chroma block of n = 1, 2 or 4 pixels (sums over the block, s = 16 + log2(n)):
 *    Y  = (19595 * R + 38470 * G + 7471 * B + 32768) >> 16
 *    Cb = clamp(128 + ((-11059 * sumR - 21709 * sumG + 32768 * sumB + n * 32768) >> s))
 *    Cr = clamp(128 + ((32768 * sumR - 27439 * sumG - 5329 * sumB + n * 32768) >> s))
 * </pre>
 *
 * Chroma is upsampled by replication: pixel {@code (y, x)} uses chroma sample {@code (y >> 1, x >> 1)}.
 */
public final class Bt601 {
    private static final int HALF = 1 << 15;
    private static final int SHIFT = 16;

    private Bt601() {
    }

    /**
     * Decodes {@code count} pixels of one row to interleaved RGB: luma from {@code luma[lumaAt..]}, chroma from
     * {@code cb[cbAt..]} and {@code cr[crAt..]} (the chroma samples of the row's first pixel on), where the row's first
     * pixel has the absolute column {@code firstColumn} (its parity says whether it shares its chroma sample with the
     * next pixel or the previous one).
     */
    public static void decodeRow(byte[] luma, int lumaAt, byte[] cb, int cbAt, byte[] cr, int crAt, int firstColumn,
                                 int count, byte[] rgb, int rgbAt) {
        int i = 0;
        int c = 0;
        if ((firstColumn & 1) != 0 && count > 0) { // the first pixel is the second of its chroma block
            pixel(luma[lumaAt] & 0xFF, cb[cbAt] & 0xFF, cr[crAt] & 0xFF, rgb, rgbAt);
            i = 1;
            c = 1;
        }
        // Two pixels per chroma sample: its three terms once, then luma plus term, clamped. (Plain arithmetic with a
        // clamp that branches, rarely taken on photos: 1.65x the speed of libjpeg-style lookup tables here.)
        for (; i + 1 < count; i += 2, c++) {
            int u = (cb[cbAt + c] & 0xFF) - 128;
            int v = (cr[crAt + c] & 0xFF) - 128;
            int red = (91881 * v + HALF) >> SHIFT;
            int green = (-22554 * u - 46802 * v + HALF) >> SHIFT;
            int blue = (116130 * u + HALF) >> SHIFT;
            int at = rgbAt + 3 * i;
            int y = luma[lumaAt + i] & 0xFF;
            rgb[at] = (byte) clamp(y + red);
            rgb[at + 1] = (byte) clamp(y + green);
            rgb[at + 2] = (byte) clamp(y + blue);
            y = luma[lumaAt + i + 1] & 0xFF;
            rgb[at + 3] = (byte) clamp(y + red);
            rgb[at + 4] = (byte) clamp(y + green);
            rgb[at + 5] = (byte) clamp(y + blue);
        }
        if (i < count) {
            pixel(luma[lumaAt + i] & 0xFF, cb[cbAt + c] & 0xFF, cr[crAt + c] & 0xFF, rgb, rgbAt + 3 * i);
        }
    }

    /** One pixel of luma {@code y} and chroma bytes {@code u} (Cb), {@code v} (Cr): SPEC.md's formula as written. */
    static void pixel(int y, int u, int v, byte[] rgb, int at) {
        rgb[at] = (byte) clamp(y + ((91881 * (v - 128) + HALF) >> SHIFT));
        rgb[at + 1] = (byte) clamp(y + ((-22554 * (u - 128) - 46802 * (v - 128) + HALF) >> SHIFT));
        rgb[at + 2] = (byte) clamp(y + ((116130 * (u - 128) + HALF) >> SHIFT));
    }

    /**
     * Decodes a whole yuv420 payload ({@code planes[at..]}) of a {@code height x width} image to interleaved RGB
     * ({@code height x width x 3} bytes into {@code rgb[rgbAt..]}).
     */
    public static void decode(byte[] planes, int at, int height, int width, byte[] rgb, int rgbAt) {
        int chromaWidth = (int) Yuv420Descriptor.chromaWidth(width);
        int cb = at + (int) Yuv420Descriptor.cbOffset(height, width);
        int cr = at + (int) Yuv420Descriptor.crOffset(height, width);
        for (int y = 0; y < height; y++) {
            int chromaRow = (y >> 1) * chromaWidth;
            decodeRow(planes, at + y * width, planes, cb + chromaRow, planes, cr + chromaRow, 0, width, rgb,
                rgbAt + 3 * y * width);
        }
    }

    /**
     * Encodes an interleaved RGB image ({@code height x width x 3} bytes from {@code rgb[rgbAt..]}) as a yuv420
     * payload ({@link Yuv420Descriptor#payloadLength} bytes into {@code out[outAt..]}).
     */
    public static void encode(byte[] rgb, int rgbAt, int height, int width, byte[] out, int outAt) {
        for (int p = 0, n = height * width; p < n; p++) {
            int at = rgbAt + 3 * p;
            out[outAt + p] = (byte) luma(rgb[at] & 0xFF, rgb[at + 1] & 0xFF, rgb[at + 2] & 0xFF);
        }
        int chromaWidth = (int) Yuv420Descriptor.chromaWidth(width);
        int chromaHeight = (int) Yuv420Descriptor.chromaHeight(height);
        int cbAt = outAt + (int) Yuv420Descriptor.cbOffset(height, width);
        int crAt = outAt + (int) Yuv420Descriptor.crOffset(height, width);
        for (int i = 0; i < chromaHeight; i++) {
            for (int j = 0; j < chromaWidth; j++) {
                int sumR = 0;
                int sumG = 0;
                int sumB = 0;
                int rows = Math.min(2, height - 2 * i);
                int cols = Math.min(2, width - 2 * j);
                for (int dy = 0; dy < rows; dy++) {
                    for (int dx = 0; dx < cols; dx++) {
                        int at = rgbAt + 3 * ((2 * i + dy) * width + 2 * j + dx);
                        sumR += rgb[at] & 0xFF;
                        sumG += rgb[at + 1] & 0xFF;
                        sumB += rgb[at + 2] & 0xFF;
                    }
                }
                int pixels = rows * cols;
                int shift = SHIFT + Integer.numberOfTrailingZeros(pixels);
                int round = pixels * HALF;
                out[cbAt + i * chromaWidth + j] =
                    (byte) clamp(128 + ((-11059 * sumR - 21709 * sumG + 32768 * sumB + round) >> shift));
                out[crAt + i * chromaWidth + j] =
                    (byte) clamp(128 + ((32768 * sumR - 27439 * sumG - 5329 * sumB + round) >> shift));
            }
        }
    }

    /** Luma of one RGB pixel. */
    public static int luma(int r, int g, int b) {
        return (19595 * r + 38470 * g + 7471 * b + HALF) >> SHIFT;
    }

    /** {@code value} clamped to 0..255; the test is one compare for the values in range. */
    private static int clamp(int value) {
        return (value & ~0xFF) == 0 ? value : ~(value >> 31) & 0xFF;
    }
}
