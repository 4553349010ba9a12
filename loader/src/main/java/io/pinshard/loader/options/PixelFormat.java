package io.pinshard.loader.options;

import io.pinshard.memory.DType;
import io.pinshard.memory.HalfFloats;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

/**
 * What a batch slot's pixels are: element type, layout and, for float types, the per-channel normalisation. The
 * default, {@link #UINT8_NHWC}, is the crop itself ({@code crop x crop x 3} RGB bytes); a float type makes the crop
 * kernel write training-ready values, {@code (x / 255 - mean) / std} per channel, computed as
 * {@code x * scale + shift} in float32, as one fused multiply-add (one rounding), with {@link #scale}/{@link #shift}
 * rounded to float32 exactly as {@code pinshard.torch.normalisation} rounds them, then rounded once to float16 or
 * bfloat16 (nearest even, {@link io.pinshard.memory.HalfFloats}). These are {@code to_training}'s values bit for bit
 * where torch's {@code addcmul} fuses the multiply-add too (its AVX2/AVX-512 kernels on x86-64), and within one ulp of
 * float32 (so within one ulp of the 16-bit type after its rounding) where it does not.
 *
 * <p>NCHW holds each image as three planes (R, G, B) of {@code crop x crop}; NHWC interleaves them per pixel. Every
 * value a format can write is checked finite (in its element type) here, so a slot never holds an infinity or NaN.
 */
public final class PixelFormat {
    /** Memory order of one image's values. */
    public enum Layout { NHWC, NCHW }

    /** uint8 RGB, NHWC, no normalisation: the loader's own crop. */
    public static final PixelFormat UINT8_NHWC = new PixelFormat(DType.UINT8, Layout.NHWC, null, null);

    private static final int CHANNELS = 3;
    private static final int LEVELS = 256;

    private final DType dtype;
    private final Layout layout;
    private final double[] mean;
    private final double[] std;
    private final float[] scale;
    private final float[] shift;

    private PixelFormat(DType dtype, Layout layout, double[] mean, double[] std) {
        this.dtype = Objects.requireNonNull(dtype, "dtype");
        this.layout = Objects.requireNonNull(layout, "layout");
        if (dtype != DType.UINT8 && dtype != DType.FLOAT32 && dtype != DType.FLOAT16 && dtype != DType.BFLOAT16) {
            throw new IllegalArgumentException("pixels are uint8, float32, float16 or bfloat16, not "
                + name(dtype));
        }
        if (dtype == DType.UINT8 && (mean != null || std != null)) {
            throw new IllegalArgumentException("mean/std need a float dtype (float32, float16 or bfloat16): uint8 "
                + "pixels are not normalised");
        }
        this.mean = triple("mean", mean, 0);
        this.std = triple("std", std, 1);
        this.scale = new float[CHANNELS];
        this.shift = new float[CHANNELS];
        for (int c = 0; c < CHANNELS; c++) {
            if (!(this.std[c] > 0) || !Double.isFinite(this.std[c]) || !Double.isFinite(this.mean[c])) {
                throw new IllegalArgumentException("mean must be finite and std finite and > 0 for every channel: mean "
                    + Arrays.toString(this.mean) + ", std " + Arrays.toString(this.std));
            }
            scale[c] = dtype == DType.UINT8 ? 1f : (float) (1.0 / (255.0 * this.std[c]));
            shift[c] = dtype == DType.UINT8 ? 0f : (float) (-this.mean[c] / this.std[c]);
            for (int x = 0; x < LEVELS; x++) {
                if (!fits(dtype, value(c, x))) {
                    throw new IllegalArgumentException("mean " + Arrays.toString(this.mean) + " and std "
                        + Arrays.toString(this.std) + " take pixel " + x + " of channel " + c + " to " + value(c, x)
                        + ", outside " + name(dtype));
                }
            }
        }
    }

    /**
     * A format; {@code mean}/{@code std} are torchvision's (of a [0, 1] image), 1 or 3 values, or null for 0 and 1
     * (a float type then holds {@code x / 255}).
     *
     * @throws IllegalArgumentException for an element type pixels cannot have, mean/std with uint8, a std not above
     *                                  0, or values outside float32
     */
    public static PixelFormat of(DType dtype, Layout layout, double[] mean, double[] std) {
        return new PixelFormat(dtype, layout, mean, std);
    }

    /** Whether {@code value} is finite in {@code type} once rounded to it. */
    private static boolean fits(DType type, float value) {
        if (type == DType.FLOAT16) {
            return (HalfFloats.toFloat16(value) & 0x7C00) != 0x7C00;
        }
        if (type == DType.BFLOAT16) {
            return (HalfFloats.toBfloat16(value) & 0x7F80) != 0x7F80;
        }
        return Float.isFinite(value);
    }

    /** {@code "uint8"}, {@code "float32"}, {@code "float16"} or {@code "bfloat16"} -> the element type. */
    public static DType parseDType(String name) {
        for (DType type : new DType[] {DType.UINT8, DType.FLOAT32, DType.FLOAT16, DType.BFLOAT16}) {
            if (name(type).equals(name.trim().toLowerCase(Locale.ROOT))) {
                return type;
            }
        }
        throw new IllegalArgumentException("dtype must be uint8, float32, float16 or bfloat16, not \"" + name + "\"");
    }

    /** The element type's name as torch and numpy spell it ("bfloat16", "float32", ...). */
    public static String name(DType type) {
        return type.name().toLowerCase(Locale.ROOT);
    }

    private static double[] triple(String what, double[] values, double fallback) {
        if (values == null) {
            return new double[] {fallback, fallback, fallback};
        }
        if (values.length == 1) {
            return new double[] {values[0], values[0], values[0]};
        }
        if (values.length != CHANNELS) {
            throw new IllegalArgumentException(what + " holds 1 or 3 values (one per RGB channel), not "
                + values.length + ": " + Arrays.toString(values));
        }
        return values.clone();
    }

    public DType dtype() {
        return dtype;
    }

    public Layout layout() {
        return layout;
    }

    /** Channel {@code c}'s mean (0 without normalisation). */
    public double mean(int c) {
        return mean[c];
    }

    /** Channel {@code c}'s std (1 without normalisation). */
    public double std(int c) {
        return std[c];
    }

    /** float32 {@code 1 / (255 std)} of channel {@code c} (1 for uint8). */
    public float scale(int c) {
        return scale[c];
    }

    /** float32 {@code -mean / std} of channel {@code c} (0 for uint8). */
    public float shift(int c) {
        return shift[c];
    }

    /** The float32 value pixel {@code x} of channel {@code c} becomes, before any rounding to 16 bits. */
    public float value(int c, int x) {
        return Math.fma(x, scale[c], shift[c]);
    }

    /** Whether this is the loader's own crop, uint8 NHWC, which needs no conversion. */
    public boolean isCrop() {
        return dtype == DType.UINT8 && layout == Layout.NHWC;
    }

    public int elementBytes() {
        return dtype.bytes();
    }

    /** Bytes of one {@code crop x crop x 3} image in this format. */
    public long imageBytes(int crop) {
        return (long) crop * crop * CHANNELS * elementBytes();
    }

    /** For messages and events: {@code float32 NCHW mean [..] std [..]} or {@code uint8 NHWC}. */
    public String describe() {
        return name(dtype) + " " + layout + (dtype == DType.UINT8 ? "" : " mean " + Arrays.toString(mean) + " std "
            + Arrays.toString(std));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PixelFormat that && dtype == that.dtype && layout == that.layout
            && Arrays.equals(mean, that.mean) && Arrays.equals(std, that.std);
    }

    @Override
    public int hashCode() {
        return Objects.hash(dtype, layout, Arrays.hashCode(mean), Arrays.hashCode(std));
    }

    @Override
    public String toString() {
        return describe();
    }
}
