package io.pinshard.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/** The yuv420 codec's layout, conversion and entry checks (SPEC.md section 6). */
class Yuv420Test {
    /** Pixels and the Y, Cb, Cr a 1x1 image of each stores, then what it decodes to (SPEC.md's table; libjpeg's). */
    private static final int[][] KNOWN = {
        // R, G, B, Y, Cb, Cr, decoded R, G, B
        {255, 255, 255, 255, 128, 128, 255, 255, 255},
        {0, 0, 0, 0, 128, 128, 0, 0, 0},
        {255, 0, 0, 76, 85, 255, 254, 0, 0},
        {0, 255, 0, 150, 44, 21, 0, 255, 1},
        {0, 0, 255, 29, 255, 107, 0, 0, 254},
        {240, 128, 16, 149, 53, 193, 240, 128, 16},
    };

    @Test
    void knownColoursEncodeAndDecodeToTheSpecsValues() {
        for (int[] known : KNOWN) {
            byte[] planes = new byte[3];
            Bt601.encode(new byte[] {(byte) known[0], (byte) known[1], (byte) known[2]}, 0, 1, 1, planes, 0);
            assertArrayEquals(new int[] {known[3], known[4], known[5]}, unsigned(planes), "planes of " + known[0]
                + "," + known[1] + "," + known[2]);
            byte[] rgb = new byte[3];
            Bt601.decode(planes, 0, 1, 1, rgb, 0);
            assertArrayEquals(new int[] {known[6], known[7], known[8]}, unsigned(rgb));
        }
    }

    @Test
    void everyLumaAndChromaDecodesAsSpecsFormulaWritesIt() {
        byte[] luma = new byte[257]; // 256 luma values, two per chroma sample, and one more: the odd end
        byte[] rgb = new byte[3 * 257];
        for (int y = 0; y < 256; y++) {
            luma[y] = (byte) y;
        }
        byte[] cb = new byte[129];
        byte[] cr = new byte[129];
        for (int u = 0; u < 256; u++) {
            for (int v = 0; v < 256; v++) {
                java.util.Arrays.fill(cb, (byte) u);
                java.util.Arrays.fill(cr, (byte) v);
                for (int first = 0; first < 2; first++) { // from an even column (pairs) and an odd one (pixel first)
                    Bt601.decodeRow(luma, 0, cb, 0, cr, 0, first, 257, rgb, 0);
                    for (int y = 0; y < 256; y++) {
                        int r = Math.max(0, Math.min(255, y + ((91881 * (v - 128) + 32768) >> 16)));
                        int g = Math.max(0, Math.min(255, y + ((-22554 * (u - 128) - 46802 * (v - 128) + 32768) >> 16)));
                        int b = Math.max(0, Math.min(255, y + ((116130 * (u - 128) + 32768) >> 16)));
                        if ((rgb[3 * y] & 0xFF) != r || (rgb[3 * y + 1] & 0xFF) != g || (rgb[3 * y + 2] & 0xFF) != b) {
                            assertEquals(r + "," + g + "," + b, (rgb[3 * y] & 0xFF) + "," + (rgb[3 * y + 1] & 0xFF) + ","
                                + (rgb[3 * y + 2] & 0xFF), "Y " + y + ", Cb " + u + ", Cr " + v + ", first column " + first);
                        }
                    }
                }
            }
        }
    }

    @Test
    void everyColourComesBackWithinOneLevel() {
        byte[] planes = new byte[3];
        byte[] rgb = new byte[3];
        byte[] back = new byte[3];
        int worst = 0;
        for (int colour = 0; colour < 1 << 24; colour++) {
            rgb[0] = (byte) (colour >> 16);
            rgb[1] = (byte) (colour >> 8);
            rgb[2] = (byte) colour;
            Bt601.encode(rgb, 0, 1, 1, planes, 0);
            Bt601.decode(planes, 0, 1, 1, back, 0);
            for (int c = 0; c < 3; c++) {
                worst = Math.max(worst, Math.abs((rgb[c] & 0xFF) - (back[c] & 0xFF)));
            }
        }
        assertEquals(1, worst, "largest error over all 2^24 colours");
    }

    @Test
    void chromaAveragesEachBlockOfTheImageIncludingOddEdges() {
        // 3x3: chroma 2x2, blocks of 4, 2 (right column), 2 (bottom row) and 1 (corner) pixels.
        byte[] rgb = new byte[3 * 3 * 3];
        int[] blues = {0, 100, 200, 50, 150, 250, 20, 40, 60};
        for (int p = 0; p < 9; p++) {
            rgb[3 * p + 2] = (byte) blues[p];
        }
        byte[] planes = new byte[(int) Yuv420Descriptor.payloadLength(3, 3)];
        assertEquals(9 + 2 * 4, planes.length);
        Bt601.encode(rgb, 0, 3, 3, planes, 0);
        int[] sums = {0 + 100 + 50 + 150, 200 + 250, 20 + 40, 60};
        int[] pixels = {4, 2, 2, 1};
        int cb = (int) Yuv420Descriptor.cbOffset(3, 3);
        for (int block = 0; block < 4; block++) {
            int shift = 16 + Integer.numberOfTrailingZeros(pixels[block]);
            int expected = Math.min(255, 128 + ((32768 * sums[block] + pixels[block] * 32768) >> shift));
            assertEquals(expected, planes[cb + block] & 0xFF, "Cb of block " + block);
        }
    }

    @Test
    void greyImagesOfAnySizeComeBackExactly() {
        SplittableRandom random = new SplittableRandom(41);
        for (int n = 0; n < 200; n++) {
            int height = n == 0 ? 1 : random.nextInt(1, 40);
            int width = n == 0 ? 1 : random.nextInt(1, 40);
            byte[] rgb = new byte[height * width * 3];
            for (int p = 0; p < height * width; p++) {
                byte grey = (byte) random.nextInt(256);
                rgb[3 * p] = grey;
                rgb[3 * p + 1] = grey;
                rgb[3 * p + 2] = grey;
            }
            byte[] planes = new byte[(int) Yuv420Descriptor.payloadLength(height, width)];
            Bt601.encode(rgb, 0, height, width, planes, 0);
            byte[] back = new byte[rgb.length];
            Bt601.decode(planes, 0, height, width, back, 0);
            assertArrayEquals(rgb, back, height + "x" + width);
        }
    }

    @Test
    void aRowDecodesAsTheWholeImageDoesFromAnyColumn() {
        SplittableRandom random = new SplittableRandom(7);
        int height = 5;
        int width = 9;
        byte[] planes = new byte[(int) Yuv420Descriptor.payloadLength(height, width)];
        random.nextBytes(planes);
        byte[] whole = new byte[height * width * 3];
        Bt601.decode(planes, 0, height, width, whole, 0);
        int chromaWidth = (int) Yuv420Descriptor.chromaWidth(width);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                for (int count = 1; x + count <= width; count++) {
                    byte[] row = new byte[count * 3];
                    int chroma = (y >> 1) * chromaWidth + (x >> 1);
                    Bt601.decodeRow(planes, y * width + x, planes, (int) Yuv420Descriptor.cbOffset(height, width)
                        + chroma, planes, (int) Yuv420Descriptor.crOffset(height, width) + chroma, x, count, row, 0);
                    for (int i = 0; i < count * 3; i++) {
                        assertEquals(whole[(y * width + x) * 3 + i], row[i], "row " + y + " from " + x);
                    }
                }
            }
        }
    }

    @Test
    void entriesWithAnotherLengthOrChannelCountAreRefused() {
        assertEquals(5 * 7 + 2 * 3 * 4, Yuv420Descriptor.payloadLength(5, 7));
        assertEquals(3, Yuv420Descriptor.payloadLength(1, 1));
        long good = Yuv420Descriptor.payloadLength(5, 7);
        assertEquals(64 + good, check(5, 7, 3, good));
        for (long length : new long[] {good - 1, good + 1, 5 * 7 * 3, 5 * 7}) {
            ShardFormatException e = assertThrows(ShardFormatException.class, () -> check(5, 7, 3, length));
            assertEquals(ShardFormatException.Kind.BAD_INDEX_ENTRY, e.kind());
            assertTrue(e.getMessage().contains("yuv420 payload holds " + length + " bytes but 5x7 needs " + good),
                e.getMessage());
        }
        for (int channels : new int[] {1, 4}) {
            ShardFormatException e = assertThrows(ShardFormatException.class, () -> check(5, 7, channels, good));
            assertTrue(e.getMessage().contains("yuv420 records decode to 3 channels, not " + channels), e.getMessage());
        }
    }

    private static long check(int height, int width, int channels, long length) {
        int payload = (int) length;
        UnsafeBuffer index = new UnsafeBuffer(new byte[IndexEntryDescriptor.LENGTH]);
        new IndexEntryEncoder().wrap(index, 0).clear().payload(64, payload, 0).shape(height, width, channels)
            .codec(Codec.YUV420).label(0).key(0, 0);
        return IndexEntryDescriptor.checkEntry(new IndexEntryFlyweight().wrap(index, 0), 64, 1024, 64, 64, 0);
    }

    private static int[] unsigned(byte[] bytes) {
        int[] values = new int[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            values[i] = bytes[i] & 0xFF;
        }
        return values;
    }
}
