package io.pinshard.loader.augment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.format.Bt601;
import io.pinshard.format.Yuv420Descriptor;
import io.pinshard.loader.options.Resampler;
import io.pinshard.memory.HeapCounter;
import io.pinshard.memory.HeapRounds;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The vector kernel's yuv420 row conversion gives {@link Bt601#decodeRow}'s bytes (through {@link Yuv420Rows#rgbRow},
 * the scalar kernels' conversion): every width 1..80 and wide rows up to the kernel's widest box, odd and even first
 * columns, rows asked for in any order (the kept chroma rows' terms), every (Cb, Cr) pair with luma 0, 255 and noise
 * (both clamps), on the window size this JVM's kernel uses (the loader pom's vector-256 run covers the other); and a
 * row allocates nothing.
 */
class VectorYuv420RowsTest {
    @BeforeAll
    static void needsTheVectorModule() {
        String reason = Resampler.vectorUnavailableReason();
        assumeTrue(reason == null, "vector kernel not testable in this JVM: " + reason);
    }

    @Test
    void randomRowsOfEveryWidthGiveBt601sBytes() {
        Random random = new Random(601);
        int widest = Resampler.VECTOR_MAX_SCALE * 224 + 1;
        for (int width = 1; width <= 80; width++) {
            checkRandomImage(random, 1 + random.nextInt(9), width, width);
        }
        for (int i = 0; i < 12; i++) {
            checkRandomImage(random, 2 + random.nextInt(6), widest - random.nextInt(3), widest);
        }
    }

    @Test
    void everyChromaPairWithExtremeAndNoisyLumaGivesBt601sBytes() {
        int height = 6 * 256; // chroma row i: Cb = i; rows 6i..6i+5: luma 0, 255 and noise, each with both chroma rows
        int width = 2 * 256 + 1; // chroma column j: Cr = j; the odd last column: a 1-pixel block
        byte[] planes = new byte[(int) Yuv420Descriptor.payloadLength(height, width)];
        Random random = new Random(255);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                int kind = y / 2 % 3;
                planes[y * width + x] = (byte) (kind == 0 ? 0 : kind == 1 ? 255 : random.nextInt(256));
            }
        }
        int chromaWidth = (int) Yuv420Descriptor.chromaWidth(width);
        int cb = (int) Yuv420Descriptor.cbOffset(height, width);
        int cr = (int) Yuv420Descriptor.crOffset(height, width);
        for (int i = 0; i < Yuv420Descriptor.chromaHeight(height); i++) {
            for (int j = 0; j < chromaWidth; j++) {
                planes[cb + i * chromaWidth + j] = (byte) (i / 3);
                planes[cr + i * chromaWidth + j] = (byte) j;
            }
        }
        check(planes, height, width, new Random(1), width, width);
    }

    @Test
    void itsWindowIsTheVectorKernels() {
        // Chosen by the same rule in both (the kernel's padding assumes it); not read from the kernel, which uses it.
        assertEquals(VectorCropResizer.WINDOW.length(), VectorYuv420Rows.windowBytes());
    }

    @Test
    void aRowAllocatesNothing() {
        int height = 64;
        int width = 400;
        byte[] planes = new byte[(int) Yuv420Descriptor.payloadLength(height, width)];
        new Random(3).nextBytes(planes);
        ByteBuffer memory = ByteBuffer.allocateDirect(planes.length);
        new UnsafeBuffer(memory).putBytes(0, planes);
        try {
            Yuv420Rows image = new Yuv420Rows().wrap(BufferUtil.address(memory), planes.length, height, width);
            VectorYuv420Rows rows = new VectorYuv420Rows(width);
            byte[] rgb = new byte[3 * width + VectorYuv420Rows.overhang()];
            Runnable crop = () -> {
                rows.start(image, 3, width - 7);
                for (int y = 0; y < height; y++) {
                    rows.rgbRow(y, rgb);
                }
            };
            long allocated = HeapRounds.afterWarmUp(crop, 20_000, 20);
            assumeTrue(HeapCounter.currentThreadAllocatedBytes() >= 0, "no thread allocation counter in this JVM");
            assertTrue(allocated < HeapRounds.QUIET_BYTES, "20 crops' rows allocated " + allocated + " heap bytes");
        } finally {
            BufferUtil.free(memory);
        }
    }

    private static void checkRandomImage(Random random, int height, int width, int maxCount) {
        byte[] planes = new byte[(int) Yuv420Descriptor.payloadLength(height, width)];
        random.nextBytes(planes);
        int lumaBytes = height * width;
        for (int k = 0; k < planes.length; k++) { // a third of the bytes extreme: clamps on both sides, often
            int roll = random.nextInt(6);
            if (roll < 2) {
                planes[k] = (byte) (roll == 0 ? 0 : 255);
            } else if (k >= lumaBytes && roll == 2) {
                planes[k] = (byte) (random.nextBoolean() ? 1 : 254);
            }
        }
        check(planes, height, width, random, maxCount, maxCount);
    }

    /**
     * Every row of the planes in random order, over random column ranges (odd and even starts), against
     * {@link Yuv420Rows#rgbRow}; the vector rows are sized for {@code maxCount} pixels and write into an array with
     * only the promised overhang after the row.
     */
    private static void check(byte[] planes, int height, int width, Random random, int maxCount, int crops) {
        ByteBuffer memory = ByteBuffer.allocateDirect(planes.length);
        new UnsafeBuffer(memory).putBytes(0, planes);
        try {
            Yuv420Rows image = new Yuv420Rows().wrap(BufferUtil.address(memory), planes.length, height, width);
            VectorYuv420Rows rows = new VectorYuv420Rows(maxCount);
            for (int c = 0; c < Math.min(crops, 40); c++) {
                int x = c == 0 ? 0 : random.nextInt(width);
                int count = c == 0 ? width : 1 + random.nextInt(Math.min(width - x, maxCount));
                rows.start(image, x, count);
                byte[] actual = new byte[3 * count + VectorYuv420Rows.overhang()];
                byte[] expected = new byte[3 * count];
                int[] order = random.ints(2L * height, 0, height).toArray();
                for (int y : order) {
                    Arrays.fill(actual, (byte) 0x5A);
                    rows.rgbRow(y, actual);
                    image.rgbRow(y, x, count, expected, 0);
                    assertArrayEquals(expected, Arrays.copyOf(actual, 3 * count),
                        () -> "row " + y + ", columns " + x + "+" + count + " of " + height + " x " + width);
                }
            }
        } finally {
            BufferUtil.free(memory);
        }
    }
}
