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
    /** Cr's term in R, Cb's in B, and the two terms of G (the latter with the rounding half), by Cb or Cr byte. */
    private static final int[] CR_R = new int[256];
    private static final int[] CB_B = new int[256];
    private static final int[] CR_G = new int[256];
    private static final int[] CB_G = new int[256];

    /** Where 0 is in {@link #CLAMP}: luma plus any term lies in -227..482. */
    private static final int CLAMP_ZERO = 384;
    /** {@code clamp(v)} at {@code v + CLAMP_ZERO}, as a byte. */
    private static final byte[] CLAMP = new byte[1024];

    static {
        for (int i = 0; i < CLAMP.length; i++) {
            CLAMP[i] = (byte) clamp(i - CLAMP_ZERO);
        }
        for (int i = 0; i < 256; i++) {
            int c = i - 128;
            CR_R[i] = (91881 * c + HALF) >> SHIFT;
            CB_B[i] = (116130 * c + HALF) >> SHIFT;
            CR_G[i] = -46802 * c;
            CB_G[i] = -22554 * c + HALF;
        }
    }

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
        // Two pixels per chroma sample: its three terms once, then luma plus term through the clamp table.
        for (; i + 1 < count; i += 2, c++) {
            int u = cb[cbAt + c] & 0xFF;
            int v = cr[crAt + c] & 0xFF;
            int red = CR_R[v] + CLAMP_ZERO;
            int green = ((CB_G[u] + CR_G[v]) >> SHIFT) + CLAMP_ZERO;
            int blue = CB_B[u] + CLAMP_ZERO;
            int at = rgbAt + 3 * i;
            int y = luma[lumaAt + i] & 0xFF;
            rgb[at] = CLAMP[y + red];
            rgb[at + 1] = CLAMP[y + green];
            rgb[at + 2] = CLAMP[y + blue];
            y = luma[lumaAt + i + 1] & 0xFF;
            rgb[at + 3] = CLAMP[y + red];
            rgb[at + 4] = CLAMP[y + green];
            rgb[at + 5] = CLAMP[y + blue];
        }
        if (i < count) {
            pixel(luma[lumaAt + i] & 0xFF, cb[cbAt + c] & 0xFF, cr[crAt + c] & 0xFF, rgb, rgbAt + 3 * i);
        }
    }

    private static void pixel(int y, int u, int v, byte[] rgb, int at) {
        rgb[at] = CLAMP[y + CR_R[v] + CLAMP_ZERO];
        rgb[at + 1] = CLAMP[y + ((CB_G[u] + CR_G[v]) >> SHIFT) + CLAMP_ZERO];
        rgb[at + 2] = CLAMP[y + CB_B[u] + CLAMP_ZERO];
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

    private static int clamp(int value) {
        return Math.max(0, Math.min(255, value));
    }
}
