package io.pinshard.loader.augment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.loader.options.PixelFormat;
import io.pinshard.loader.options.PixelFormat.Layout;
import io.pinshard.loader.options.Resampler;
import io.pinshard.memory.DType;
import io.pinshard.memory.HalfFloats;
import io.pinshard.memory.HeapCounter;
import io.pinshard.memory.HeapRounds;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The crop's last step in every pixel format: the vector rows and the scalar rows against the reference computed here
 * value by value ({@code x * scale + shift} with one rounding to float32, then once to 16 bits by HalfFloats), at the right place in
 * NHWC and NCHW, for ImageNet's normalisation, none, and one that makes float16 subnormals; a row allocates nothing.
 */
class PixelRowsTest {
    private static final double[] MEAN = {0.485, 0.456, 0.406};
    private static final double[] STD = {0.229, 0.224, 0.225};

    static Stream<PixelFormat> formats() {
        List<PixelFormat> formats = new ArrayList<>();
        for (Layout layout : Layout.values()) {
            formats.add(PixelFormat.of(DType.UINT8, layout, null, null));
            for (DType type : new DType[] {DType.FLOAT32, DType.FLOAT16, DType.BFLOAT16}) {
                formats.add(PixelFormat.of(type, layout, MEAN, STD));
                formats.add(PixelFormat.of(type, layout, null, null));
                formats.add(PixelFormat.of(type, layout, new double[] {0, 1e-3, -2e-3}, new double[] {900, 1, 700}));
            }
        }
        return formats.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("formats")
    void vectorAndScalarRowsEqualTheReference(PixelFormat format) {
        for (int crop : new int[] {1, 7, 33, 224}) {
            byte[] image = new byte[crop * crop * 3];
            new Random(crop).nextBytes(image);
            for (int i = 0; i < 256 && i < image.length; i++) {
                image[i] = (byte) i; // every byte value in channel order
            }
            byte[] expected = reference(format, image, crop);
            assertEquals(expected.length, format.imageBytes(crop));
            assertBytes(expected, written(new PixelRows(crop, format), image, crop), format + " scalar, crop " + crop);
            if (Resampler.vectorUnavailableReason() == null) {
                assertBytes(expected, written(new VectorPixelRows(crop, format), image, crop),
                    format + " vector, crop " + crop);
            }
        }
    }

    @Test
    void formatsRefuseWhatTheyCannotHold() {
        assertThrows(IllegalArgumentException.class, () -> PixelFormat.of(DType.UINT8, Layout.NHWC, MEAN, STD));
        assertThrows(IllegalArgumentException.class, () -> PixelFormat.of(DType.INT32, Layout.NHWC, null, null));
        assertThrows(IllegalArgumentException.class,
            () -> PixelFormat.of(DType.FLOAT32, Layout.NHWC, MEAN, new double[] {0.2, 0, 0.2}));
        assertThrows(IllegalArgumentException.class,
            () -> PixelFormat.of(DType.FLOAT32, Layout.NHWC, new double[] {1, 2}, STD));
        assertThrows(IllegalArgumentException.class,
            () -> PixelFormat.of(DType.FLOAT16, Layout.NCHW, null, new double[] {1e-6}));
        assertEquals(DType.BFLOAT16, PixelFormat.parseDType(" BFloat16"));
        assertThrows(IllegalArgumentException.class, () -> PixelFormat.parseDType("float64"));
    }

    /**
     * A row allocates nothing once compiled, in every format (the loader pom runs this once more with C2 barred from
     * type profiles, where every vector call must be bound by an exact class; before, 20 float images allocated
     * 260 MB there, and uint8 NCHW's float -> byte cast boxed its vectors on JDK 17 even with profiles).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("formats")
    void aRowAllocatesNothing(PixelFormat format) {
        assumeTrue(Resampler.vectorUnavailableReason() == null, "no vector module");
        int crop = 224;
        PixelRows rows = new VectorPixelRows(crop, format);
        byte[] row = new byte[crop * 3 + PixelRows.SLACK];
        new Random(3).nextBytes(row);
        UnsafeBuffer target = new UnsafeBuffer(BufferUtil.allocateDirectAligned((int) rows.imageBytes(), 64));
        Runnable image = () -> {
            for (int y = 0; y < crop; y++) {
                rows.writeRow(row, y, target);
            }
        };
        long allocated = heapAfterWarmUp(image, 30, 20);
        assumeTrue(HeapCounter.currentThreadAllocatedBytes() >= 0, "no thread allocation counter in this JVM");
        assertTrue(allocated < HeapRounds.QUIET_BYTES, format + ": 20 images allocated " + allocated + " heap bytes");
    }

    /**
     * Heap of {@code repeats} rounds once compiled: rounds until 3 in a row are quiet, for at most {@code seconds}
     * (until C2 has compiled the Vector API code every round boxes its vectors; on a loaded machine that took more
     * than 200 images once, and boxed code runs 50 times slower, so the bound is time, not rounds), then the least
     * heap of up to 5 runs of {@code repeats} rounds.
     */
    static long heapAfterWarmUp(Runnable round, int seconds, int repeats) {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        for (int quiet = 0; quiet < 3 && System.nanoTime() - end < 0; ) {
            quiet = HeapRounds.allocatedBy(round) < HeapRounds.QUIET_BYTES ? quiet + 1 : 0;
        }
        return HeapRounds.least(5, 0, () -> {
            for (int i = 0; i < repeats; i++) {
                round.run();
            }
        });
    }

    private static byte[] written(PixelRows rows, byte[] image, int crop) {
        int bytes = (int) rows.imageBytes();
        UnsafeBuffer target = new UnsafeBuffer(BufferUtil.allocateDirectAligned(bytes, 64));
        byte[] row = new byte[crop * 3 + PixelRows.SLACK];
        for (int y = 0; y < crop; y++) {
            System.arraycopy(image, y * crop * 3, row, 0, crop * 3);
            rows.writeRow(row, y, target);
        }
        byte[] out = new byte[bytes];
        target.getBytes(0, out);
        return out;
    }

    /** The format's bytes of a uint8 NHWC crop, value by value. */
    static byte[] reference(PixelFormat format, byte[] image, int crop) {
        int element = format.elementBytes();
        UnsafeBuffer out = new UnsafeBuffer(new byte[image.length * element]);
        for (int y = 0; y < crop; y++) {
            for (int x = 0; x < crop; x++) {
                for (int c = 0; c < 3; c++) {
                    int pixel = image[(y * crop + x) * 3 + c] & 0xFF;
                    int at = format.layout() == Layout.NHWC ? (y * crop + x) * 3 + c : (c * crop + y) * crop + x;
                    float value = (float) ((double) pixel * format.scale(c) + format.shift(c)); // exact product
                    switch (format.dtype()) {
                        case FLOAT32 -> out.putFloat(at * 4, value);
                        case FLOAT16 -> out.putShort(at * 2, HalfFloats.toFloat16(value));
                        case BFLOAT16 -> out.putShort(at * 2, HalfFloats.toBfloat16(value));
                        default -> out.putByte(at, (byte) pixel);
                    }
                }
            }
        }
        return out.byteArray();
    }

    private static void assertBytes(byte[] expected, byte[] actual, String what) {
        for (int i = 0; i < expected.length; i++) {
            if (expected[i] != actual[i]) {
                throw new AssertionError(what + ": byte " + i + " is " + actual[i] + ", expected " + expected[i]);
            }
        }
    }
}
