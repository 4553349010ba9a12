package io.pinshard.cuda.augment;

import io.pinshard.memory.DType;
import io.pinshard.memory.HalfFloats;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The CPU reference of the batched augmentation, and the host backend's implementation of it. The GPU kernel
 * ({@code augment.cu}) performs exactly this arithmetic, operation by operation (compiled without FMA contraction),
 * so this class is its test oracle.
 *
 * <p>Input: {@code batch x H x W x 3} uint8 RGB (NHWC). Output: {@code batch x 3 x H x W} (NCHW) in the spec's
 * element type. For sample {@code n} with jitter factors {@code (b, c, s)} from {@link JitterParams}:
 * <pre>
 *   lumaSum = sum over pixels of (299 R + 587 G + 114 B)             exact 64-bit integer
 *   m       = (float) (lumaSum / (255000.0 * H * W)) * b             mean luminance after brightness
 *   x       = v / 255f                                               per channel value in [0, 1]
 *   x1      = clamp01(x * b)                                         brightness
 *   x2      = clamp01(c * x1 + (1f - c) * m)                         contrast, towards the mean luminance
 *   g       = 0.299f * x2R + 0.587f * x2G + 0.114f * x2B             luminance of the pixel
 *   x3      = clamp01(s * x2 + (1f - s) * g)                         saturation, towards the pixel's grey
 *   y       = (x3 - mean[ch]) * invStd[ch]                           normalisation
 * </pre>
 * With all factors 1 this is plain normalisation of {@code v / 255f}, bit for bit. Not thread-safe (reuses its
 * buffer views); allocates nothing per batch.
 */
public final class ReferenceAugmenter {
    private final UnsafeBuffer source = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer target = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer params = new UnsafeBuffer(0, 0);

    /**
     * Augments a batch.
     *
     * @param sourceAddress NHWC uint8 images, {@code batch * height * width * 3} bytes
     * @param paramsAddress jitter table, {@code batch * JitterParams.BYTES_PER_SAMPLE} bytes
     * @param targetAddress NCHW output, {@code batch * 3 * height * width * spec.output().bytes()} bytes
     */
    public void augment(long sourceAddress, long paramsAddress, long targetAddress, int batch, int height, int width,
                        AugmentSpec spec) {
        long pixels = checkedPixels(batch, height, width);
        long targetBytes = pixels * 3 * spec.output().bytes();
        if (targetBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("batch too large for the CPU reference: " + targetBytes + " output bytes");
        }
        source.wrap(sourceAddress, (int) (pixels * 3));
        params.wrap(paramsAddress, batch * JitterParams.BYTES_PER_SAMPLE);
        target.wrap(targetAddress, (int) targetBytes);
        int plane = height * width;
        int elementBytes = spec.output().bytes();
        int code = spec.output().ordinal();
        for (int n = 0; n < batch; n++) {
            int p = n * JitterParams.BYTES_PER_SAMPLE;
            float b = params.getFloat(p + JitterParams.BRIGHTNESS_OFFSET);
            float c = params.getFloat(p + JitterParams.CONTRAST_OFFSET);
            float s = params.getFloat(p + JitterParams.SATURATION_OFFSET);
            int in = n * plane * 3;
            long lumaSum = 0;
            for (int i = 0; i < plane; i++) {
                int at = in + i * 3;
                lumaSum += 299L * (source.getByte(at) & 0xFF) + 587L * (source.getByte(at + 1) & 0xFF)
                    + 114L * (source.getByte(at + 2) & 0xFF);
            }
            float m = (float) (lumaSum / (255000.0 * plane)) * b;
            float oneMinusC = 1f - c;
            float oneMinusS = 1f - s;
            int outSample = n * 3 * plane;
            for (int i = 0; i < plane; i++) {
                int at = in + i * 3;
                float r2 = clamp01(c * clamp01(((source.getByte(at) & 0xFF) / 255f) * b) + oneMinusC * m);
                float g2 = clamp01(c * clamp01(((source.getByte(at + 1) & 0xFF) / 255f) * b) + oneMinusC * m);
                float b2 = clamp01(c * clamp01(((source.getByte(at + 2) & 0xFF) / 255f) * b) + oneMinusC * m);
                float grey = 0.299f * r2 + 0.587f * g2 + 0.114f * b2;
                float r3 = clamp01(s * r2 + oneMinusS * grey);
                float g3 = clamp01(s * g2 + oneMinusS * grey);
                float b3 = clamp01(s * b2 + oneMinusS * grey);
                store(code, (outSample + i) * elementBytes, (r3 - spec.mean(0)) * spec.invStd(0));
                store(code, (outSample + plane + i) * elementBytes, (g3 - spec.mean(1)) * spec.invStd(1));
                store(code, (outSample + 2 * plane + i) * elementBytes, (b3 - spec.mean(2)) * spec.invStd(2));
            }
        }
    }

    private void store(int dtypeOrdinal, int byteIndex, float value) {
        if (dtypeOrdinal == DType.FLOAT32.ordinal()) {
            target.putFloat(byteIndex, value);
        } else if (dtypeOrdinal == DType.FLOAT16.ordinal()) {
            target.putShort(byteIndex, HalfFloats.toFloat16(value));
        } else {
            target.putShort(byteIndex, HalfFloats.toBfloat16(value));
        }
    }

    static float clamp01(float x) {
        return Math.min(Math.max(x, 0f), 1f);
    }

    static long checkedPixels(int batch, int height, int width) {
        if (batch <= 0 || height <= 0 || width <= 0) {
            throw new IllegalArgumentException("batch, height and width must be positive: " + batch + "x" + height
                + "x" + width);
        }
        return (long) batch * height * width;
    }
}
