package io.pinshard.cuda.augment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.cuda.TestBatch;
import io.pinshard.memory.DType;
import io.pinshard.memory.HalfFloats;
import io.pinshard.memory.HostBatch;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/**
 * The CPU reference augmentation: hand-computed cases and properties. It is the GPU kernel's oracle; the backend and
 * pipeline tests take their expected output from {@link #augmentOnHost}.
 */
public class ReferenceAugmenterTest {
    private static final float[] HALF_MEAN = {0.5f, 0.5f, 0.5f};
    private static final float[] QUARTER_STD = {0.25f, 0.25f, 0.25f}; // invStd 4, exact in binary

    /** Runs the reference on a test batch with jitter factors from the spec; returns the output bytes. */
    public static byte[] augmentOnHost(HostBatch batch, AugmentSpec spec) {
        int n = batch.size();
        ByteBuffer params = ByteBuffer.allocateDirect(n * JitterParams.BYTES_PER_SAMPLE);
        UnsafeBuffer table = new UnsafeBuffer(params);
        for (int i = 0; i < n; i++) {
            JitterParams.write(spec, batch.epoch(), batch.sampleId(i), table, i);
        }
        return run(batch.imagesAddress(), table, n, batch.height(), batch.width(), spec);
    }

    private static byte[] run(long source, UnsafeBuffer params, int n, int h, int w, AugmentSpec spec) {
        int outBytes = n * 3 * h * w * spec.output().bytes();
        ByteBuffer out = ByteBuffer.allocateDirect(outBytes);
        new ReferenceAugmenter().augment(source, params.addressOffset(), BufferUtil.address(out), n, h, w, spec);
        byte[] bytes = new byte[outBytes];
        out.get(bytes);
        return bytes;
    }

    /** One image of the given RGB pixels, with explicit jitter factors (b, c, s); float32 NCHW result. */
    private static float[] augmentPixels(int[][] rgb, int h, int w, float b, float c, float s, AugmentSpec spec) {
        ByteBuffer pixels = ByteBuffer.allocateDirect(h * w * 3);
        for (int[] p : rgb) {
            pixels.put((byte) p[0]).put((byte) p[1]).put((byte) p[2]);
        }
        UnsafeBuffer params = new UnsafeBuffer(ByteBuffer.allocateDirect(JitterParams.BYTES_PER_SAMPLE));
        params.putFloat(JitterParams.BRIGHTNESS_OFFSET, b);
        params.putFloat(JitterParams.CONTRAST_OFFSET, c);
        params.putFloat(JitterParams.SATURATION_OFFSET, s);
        byte[] out = run(BufferUtil.address(pixels), params, 1, h, w, spec);
        float[] values = new float[3 * h * w];
        ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(values);
        return values;
    }

    private static AugmentSpec halfQuarter() {
        return AugmentSpec.normaliseOnly().withNormalisation(HALF_MEAN, QUARTER_STD);
    }

    @Test
    void plainNormalisationHandComputed() {
        // Pixels: white, black, (51, 102, 153) = (0.2, 0.4, 0.6). NCHW: R plane, G plane, B plane.
        float[] y = augmentPixels(new int[][] {{255, 255, 255}, {0, 0, 0}, {51, 102, 153}}, 1, 3, 1f, 1f, 1f,
            halfQuarter());
        float[] expected = {2f, -2f, -1.2f, 2f, -2f, -0.4f, 2f, -2f, 0.4f};
        assertArrayEquals(expected, y, 1e-6f);
    }

    @Test
    void brightnessScalesAndClamps() {
        float[] y = augmentPixels(new int[][] {{255, 102, 0}}, 1, 1, 0.5f, 1f, 1f, halfQuarter());
        assertArrayEquals(new float[] {0f, -1.2f, -2f}, y, 1e-6f); // 0.5, 0.2, 0 -> (x - .5) * 4
        float[] bright = augmentPixels(new int[][] {{255, 102, 0}}, 1, 1, 1.5f, 1f, 1f, halfQuarter());
        assertArrayEquals(new float[] {2f, 0.4f, -2f}, bright, 1e-6f); // 1.5 clamps to 1; 0.6; 0
    }

    @Test
    void zeroContrastGivesTheMeanLuminanceEverywhere() {
        // Black and white pixels: mean luminance 0.5, so contrast 0 makes every value 0.5 -> 0 after normalising.
        float[] y = augmentPixels(new int[][] {{0, 0, 0}, {255, 255, 255}}, 1, 2, 1f, 0f, 1f, halfQuarter());
        assertArrayEquals(new float[6], y, 1e-6f);
    }

    @Test
    void zeroSaturationGivesThePixelsGrey() {
        // Pure red: grey = 0.299, so every channel becomes 0.299 -> (0.299 - 0.5) * 4 = -0.804.
        float[] y = augmentPixels(new int[][] {{255, 0, 0}}, 1, 1, 1f, 1f, 0f, halfQuarter());
        assertArrayEquals(new float[] {-0.804f, -0.804f, -0.804f}, y, 1e-5f);
    }

    @Test
    void jitterOffIsPlainNormalisationBitForBit() {
        AugmentSpec spec = AugmentSpec.normaliseOnly();
        TestBatch batch = new TestBatch(io.pinshard.memory.HostMemoryAllocator.INSTANCE, "x", 10, 3, 7, 9, 42, null);
        try {
            float[] y = floats(augmentOnHost(batch, spec));
            byte[] pixels = batch.pixelBytes();
            int plane = 7 * 9;
            for (int n = 0; n < 3; n++) {
                for (int i = 0; i < plane; i++) {
                    for (int ch = 0; ch < 3; ch++) {
                        float x = (pixels[(n * plane + i) * 3 + ch] & 0xFF) / 255f;
                        float plain = (x - AugmentSpec.IMAGENET_MEAN[ch]) * (1f / AugmentSpec.IMAGENET_STD[ch]);
                        assertEquals(Float.floatToIntBits(plain), Float.floatToIntBits(y[(n * 3 + ch) * plane + i]));
                    }
                }
            }
        } finally {
            batch.free();
        }
    }

    @Test
    void normalisationInvertsBackToPixelValues() {
        AugmentSpec spec = AugmentSpec.normaliseOnly();
        TestBatch batch = new TestBatch(io.pinshard.memory.HostMemoryAllocator.INSTANCE, "x", 0, 2, 5, 6, 7, null);
        try {
            float[] y = floats(augmentOnHost(batch, spec));
            byte[] pixels = batch.pixelBytes();
            int plane = 30;
            for (int n = 0; n < 2; n++) {
                for (int i = 0; i < plane; i++) {
                    for (int ch = 0; ch < 3; ch++) {
                        float back = y[(n * 3 + ch) * plane + i] * AugmentSpec.IMAGENET_STD[ch] + AugmentSpec.IMAGENET_MEAN[ch];
                        assertEquals(pixels[(n * plane + i) * 3 + ch] & 0xFF, back * 255f, 1e-3f);
                    }
                }
            }
        } finally {
            batch.free();
        }
    }

    @Test
    void jitterIsDeterministicPerSampleWhateverItsBatchPosition() {
        AugmentSpec spec = AugmentSpec.jitter(0.4f, 0.4f, 0.4f, 2024);
        TestBatch batch = new TestBatch(io.pinshard.memory.HostMemoryAllocator.INSTANCE, "x", 100, 2, 4, 4, 3, null);
        TestBatch alone = new TestBatch(io.pinshard.memory.HostMemoryAllocator.INSTANCE, "y", 0, 1, 4, 4, 0, null);
        try {
            // Put image 1 of the batch (sample 101) alone in another batch, at position 0, with the same id.
            new UnsafeBuffer(alone.imagesAddress(), 48).putBytes(0, new UnsafeBuffer(batch.imagesAddress() + 48, 48), 0, 48);
            alone.sampleIds[0] = 101;
            byte[] inBatch = augmentOnHost(batch, spec);
            byte[] single = augmentOnHost(alone, spec);
            byte[] secondOfBatch = java.util.Arrays.copyOfRange(inBatch, inBatch.length / 2, inBatch.length);
            assertArrayEquals(secondOfBatch, single);
            assertArrayEquals(inBatch, augmentOnHost(batch, spec), "same input, same output");
            alone.sampleIds[0] = 102;
            assertFalse(java.util.Arrays.equals(single, augmentOnHost(alone, spec)), "another sample id, other jitter");
            assertFalse(java.util.Arrays.equals(inBatch, augmentOnHost(batch, AugmentSpec.jitter(0.4f, 0.4f, 0.4f, 2025))),
                "another seed, other jitter");
        } finally {
            batch.free();
            alone.free();
        }
    }

    @Test
    void jitterFactorsStayInRangeAndSpreadOverIt() {
        SplittableRandom random = new SplittableRandom(1);
        float min = 2;
        float max = 0;
        for (int i = 0; i < 10_000; i++) {
            float f = JitterParams.factor(77, i % 5, random.nextLong(), i % 3, 0.3f);
            assertTrue(f >= 0.7f && f <= 1.3f, "factor " + f);
            min = Math.min(min, f);
            max = Math.max(max, f);
        }
        assertTrue(min < 0.71f && max > 1.29f, "spread " + min + ".." + max);
        assertEquals(1f, JitterParams.factor(77, 2, 5, 0, 0f));
    }

    @Test
    void halfOutputsAreTheRoundedFloatOutput() {
        AugmentSpec spec = AugmentSpec.jitter(0.3f, 0.3f, 0.3f, 8);
        TestBatch batch = new TestBatch(io.pinshard.memory.HostMemoryAllocator.INSTANCE, "x", 0, 2, 6, 5, 9, null);
        try {
            float[] y = floats(augmentOnHost(batch, spec));
            short[] f16 = shorts(augmentOnHost(batch, spec.withOutput(DType.FLOAT16)));
            short[] bf16 = shorts(augmentOnHost(batch, spec.withOutput(DType.BFLOAT16)));
            for (int i = 0; i < y.length; i++) {
                assertEquals(HalfFloats.toFloat16(y[i]), f16[i]);
                assertEquals(HalfFloats.toBfloat16(y[i]), bf16[i]);
            }
        } finally {
            batch.free();
        }
    }

    @Test
    void rejectsBadArguments() {
        ReferenceAugmenter augmenter = new ReferenceAugmenter();
        assertThrows(IllegalArgumentException.class, () -> augmenter.augment(1, 1, 1, 0, 4, 4, AugmentSpec.normaliseOnly()));
        assertThrows(IllegalArgumentException.class, () -> AugmentSpec.jitter(1f, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> AugmentSpec.jitter(-0.1f, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> AugmentSpec.normaliseOnly().withOutput(DType.UINT8));
        assertThrows(IllegalArgumentException.class,
            () -> AugmentSpec.normaliseOnly().withNormalisation(new float[] {0, 0, 0}, new float[] {1, 0, 1}));
        assertThrows(IllegalArgumentException.class,
            () -> AugmentSpec.normaliseOnly().withNormalisation(new float[] {0, 0}, new float[] {1, 1}));
    }

    public static float[] floats(byte[] bytes) {
        float[] v = new float[bytes.length / 4];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(v);
        return v;
    }

    static short[] shorts(byte[] bytes) {
        short[] v = new short[bytes.length / 2];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asShortBuffer().get(v);
        return v;
    }
}
