package io.pinshard.loader.augment;

import io.pinshard.loader.options.PixelFormat;
import io.pinshard.memory.DType;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * {@link PixelRows} with the JDK Vector API, 16 values per step on 512-bit vectors (8 on 256-bit ones): bytes widen to
 * int lanes, become float32, are multiplied by the channel's scale and added to its shift in one fused multiply-add (as
 * {@link PixelFormat#value}), then stored as float32 or
 * rounded to float16 / bfloat16 with round-to-nearest-even in integer lanes (the bit arithmetic of
 * {@link io.pinshard.memory.HalfFloats}; for float16 Fabian Giesen's branch-free form, subnormals by a float add). NCHW
 * first splits the uint8 row into its three channels' rows (a scalar pass over 3 x crop bytes in L1: JDK 17's vector
 * gathers and byte shuffles measured 4 and 20 times slower here), then converts each like an NHWC row. The row lives in the worker's
 * L1; the destination is written once, by guarded copies. uint8 NCHW is that split alone. Only loaded with
 * {@code jdk.incubator.vector}.
 *
 * <p>Every vector a method is called on has a class C2 knows exactly (a constant, a
 * concrete vector class's own result, or a {@code Class.cast}, as in {@link VectorCropResizer}), so a row allocates
 * nothing without type profiles too (the loader pom's no-type-profiles runs of PixelRowsTest).
 *
 * <p>{@link #writeRow} must be compiled on its own, not inlined into the crop kernel: there C2 kept its vectors as heap
 * objects (float32 NHWC in {@code pinshard bench}: 0.65 GB of heap per batch, 579 images/s; on its own 0 B and 9,027).
 * The root pom's JVM flags say so ({@code -XX:CompileCommand=dontinline,...VectorPixelRows::writeRow}).
 */
public final class VectorPixelRows extends PixelRows {
    private static final boolean WIDE = ByteVector.SPECIES_PREFERRED.vectorBitSize() >= 512 && !held256();
    private static final VectorSpecies<Float> FLOATS = WIDE ? FloatVector.SPECIES_512 : FloatVector.SPECIES_256;
    private static final VectorSpecies<Integer> INTS = WIDE ? IntVector.SPECIES_512 : IntVector.SPECIES_256;
    private static final VectorSpecies<Short> SHORTS = WIDE ? ShortVector.SPECIES_256 : ShortVector.SPECIES_128;
    private static final VectorSpecies<Byte> BYTES = WIDE ? ByteVector.SPECIES_128 : ByteVector.SPECIES_64;
    private static final int LANES = FLOATS.length();
    /*
     * As in VectorCropResizer: what fromArray, castShape, convertShape, reinterpretAs* and the scalar forms (and(e),
     * lanewise(LSHR, n), add(e)) return has no exact class when C2 parses a row, so a call on it would be bound by a
     * type profile, and without one it stays virtual and the vectors are heap objects (259 MB per 20 float32 images
     * with -XX:-UseTypeProfile). Class.cast to the species' vector class (an intrinsic) makes each such value exact.
     */
    private static final Class<FloatVector> FLOATS_CLASS = ExactVectors.vectorClass(FLOATS);
    private static final Class<IntVector> INTS_CLASS = ExactVectors.vectorClass(INTS);
    private static final Class<ShortVector> SHORTS_CLASS = ExactVectors.vectorClass(SHORTS);
    private static final Class<ByteVector> BYTES_CLASS = ExactVectors.vectorClass(BYTES);
    /** The bytes of a float32 vector and of a 16-bit one. */
    private static final Class<ByteVector> FLOAT_BYTES_CLASS =
        ExactVectors.vectorClass(WIDE ? ByteVector.SPECIES_512 : ByteVector.SPECIES_256);
    private static final Class<ByteVector> SHORT_BYTES_CLASS =
        ExactVectors.vectorClass(WIDE ? ByteVector.SPECIES_256 : ByteVector.SPECIES_128);

    /*
     * The bit patterns as vector constants: a vector operand keeps each result exact (the scalar forms do not), and
     * compare with a scalar would broadcast it on every call.
     */
    private static final IntVector SIGN = IntVector.broadcast(INTS, 0x8000_0000);
    private static final IntVector MAGNITUDE = IntVector.broadcast(INTS, 0x7FFF_FFFF);
    private static final IntVector LOW_BYTE = IntVector.broadcast(INTS, 0xFF);
    private static final IntVector ONES = IntVector.broadcast(INTS, 1);
    private static final IntVector BFLOAT16_ROUNDING = IntVector.broadcast(INTS, 0x7FFF);
    /** float32 bits of the smallest value that is infinite in float16 after rounding: 65520. */
    private static final IntVector HALF_OVERFLOW = IntVector.broadcast(INTS, (127 + 16) << 23);
    /** Below 2^-14 a float16 is subnormal. */
    private static final IntVector HALF_NORMAL_MIN = IntVector.broadcast(INTS, 113 << 23);
    /** Rebias from float32's exponent to float16's, plus 0xFFF: with the odd bit, round to nearest even. */
    private static final IntVector NORMAL_BIAS = IntVector.broadcast(INTS, ((15 - 127) << 23) + 0xFFF);
    /** 0.5f: adding it aligns a subnormal float16's bits at the bottom of the float's mantissa, rounded by the FPU. */
    private static final int DENORMAL_MAGIC_INT = ((127 - 15) + (23 - 10) + 1) << 23;
    private static final FloatVector DENORMAL_MAGIC =
        FloatVector.broadcast(FLOATS, Float.intBitsToFloat(DENORMAL_MAGIC_INT));
    private static final IntVector DENORMAL_MAGIC_BITS = IntVector.broadcast(INTS, DENORMAL_MAGIC_INT);
    private static final IntVector HALF_INFINITY = IntVector.broadcast(INTS, 0x7C00);

    /** Per value of a row (NHWC order, padded to whole vectors): its channel's scale and shift. */
    private final float[] scale;
    private final float[] shift;
    /** NCHW: per place in {@link #channels}, its channel's scale and shift. */
    private final float[] planeScale;
    private final float[] planeShift;
    /** NCHW: the row's three channels, each a row of its own, {@link #planeRow} apart. */
    private final byte[] channels;
    private final int padded;

    public VectorPixelRows(int crop, PixelFormat format) {
        super(crop, format);
        this.padded = (values + LANES - 1) / LANES * LANES;
        this.scale = new float[padded];
        this.shift = new float[padded];
        for (int k = 0; k < padded; k++) {
            scale[k] = format.scale(k % CHANNELS);
            shift[k] = format.shift(k % CHANNELS);
        }
        this.channels = new byte[CHANNELS * planeRow + LANES];
        this.planeScale = new float[CHANNELS * planeRow + LANES];
        this.planeShift = new float[CHANNELS * planeRow + LANES];
        for (int k = 0; k < planeScale.length; k++) {
            int c = Math.min(k / planeRow, CHANNELS - 1);
            planeScale[k] = format.scale(c);
            planeShift[k] = format.shift(c);
        }
    }

    @Override
    public void writeRow(byte[] row, int y, UnsafeBuffer image) {
        if (isCopy()) {
            image.putBytes(y * values, row, 0, values);
            return;
        }
        if (planar) {
            planes(row);
        } else {
            interleaved(row);
        }
        copyOut(y, image);
    }

    /** NHWC: the row's values in place, each with its channel's scale and shift. */
    private void interleaved(byte[] row) {
        convert(row, 0, padded, scale, shift);
    }

    /** NCHW: the row split into its channels' rows, each converted to its plane's row in {@link #out}. */
    private void planes(byte[] row) {
        // uint8: the split rows are the output (JDK 17's C2 has no vector float -> byte cast: it boxed every vector)
        boolean bytes = format.dtype() == DType.UINT8;
        byte[] split = bytes ? out : channels;
        for (int p = 0, k = 0; p < crop; p++, k += CHANNELS) {
            split[p] = row[k];
            split[planeRow + p] = row[k + 1];
            split[2 * planeRow + p] = row[k + 2];
        }
        if (bytes) {
            return;
        }
        for (int c = 0; c < CHANNELS; c++) {
            convert(channels, c * planeRow, c * planeRow + crop, planeScale, planeShift);
        }
    }

    /**
     * Values {@code [from, to)} of {@code bytes} (rounded up to whole vectors) to the same places in {@link #out}, by
     * the scales and shifts at those places. One method per element type, each a compilation of its own (the root
     * pom's {@code dontinline ...VectorPixelRows::row*}; arrays in and out, no vector crosses a call): one method with
     * every type's code passed C2's inlining budget once a second type had run in the JVM (float16 after float32 and
     * bfloat16: 358 MB per 20 images without type profiles), and its later vector calls were left virtual.
     */
    private void convert(byte[] bytes, int from, int to, float[] times, float[] plus) {
        DType type = format.dtype();
        if (type == DType.FLOAT32) {
            rowFloat32(bytes, from, to, times, plus);
        } else if (type == DType.BFLOAT16) {
            rowBfloat16(bytes, from, to, times, plus);
        } else {
            rowFloat16(bytes, from, to, times, plus);
        }
    }

    private void rowFloat32(byte[] bytes, int from, int to, float[] times, float[] plus) {
        for (int k = from; k < to; k += LANES) {
            FLOAT_BYTES_CLASS.cast(toFloats(bytes, k, times, plus).reinterpretAsBytes())
                .intoArray(out, k * Float.BYTES);
        }
    }

    /** bfloat16: the top 16 bits, rounded to nearest even. */
    private void rowBfloat16(byte[] bytes, int from, int to, float[] times, float[] plus) {
        for (int k = from; k < to; k += LANES) {
            IntVector bits = INTS_CLASS.cast(toFloats(bytes, k, times, plus).reinterpretAsInts());
            IntVector rounded = bits.add(INTS_CLASS.cast(bits.lanewise(VectorOperators.LSHR, 16)).and(ONES))
                .add(BFLOAT16_ROUNDING);
            narrow(INTS_CLASS.cast(rounded.lanewise(VectorOperators.LSHR, 16))).intoArray(out, k * Short.BYTES);
        }
    }

    private void rowFloat16(byte[] bytes, int from, int to, float[] times, float[] plus) {
        for (int k = from; k < to; k += LANES) {
            IntVector bits = INTS_CLASS.cast(toFloats(bytes, k, times, plus).reinterpretAsInts());
            narrow(toHalf(bits)).intoArray(out, k * Short.BYTES);
        }
    }

    /** Bytes {@code k .. k + LANES - 1} of {@code bytes} -> float32, times scale plus shift (one rounding). */
    private static FloatVector toFloats(byte[] bytes, int k, float[] times, float[] plus) {
        IntVector ints = INTS_CLASS.cast(BYTES_CLASS.cast(ByteVector.fromArray(BYTES, bytes, k)).castShape(INTS, 0))
            .and(LOW_BYTE);
        return FLOATS_CLASS.cast(ints.castShape(FLOATS, 0))
            .fma(FloatVector.fromArray(FLOATS, times, k), FloatVector.fromArray(FLOATS, plus, k));
    }

    /** The low 16 bits of each int lane, as the bytes of 16-bit lanes. */
    private static ByteVector narrow(IntVector sixteenBits) {
        return SHORT_BYTES_CLASS.cast(SHORTS_CLASS.cast(sixteenBits.convertShape(VectorOperators.I2S, SHORTS, 0))
            .reinterpretAsBytes());
    }

    /** float32 bits -> float16 bits, nearest even; the values are finite (PixelFormat checks them). */
    private static IntVector toHalf(IntVector bits) {
        IntVector sign = bits.and(SIGN);
        IntVector magnitude = bits.and(MAGNITUDE);
        VectorMask<Integer> overflow = magnitude.compare(VectorOperators.GE, HALF_OVERFLOW);
        VectorMask<Integer> subnormal = magnitude.compare(VectorOperators.LT, HALF_NORMAL_MIN);
        IntVector odd = INTS_CLASS.cast(magnitude.lanewise(VectorOperators.LSHR, 13)).and(ONES);
        IntVector normal = INTS_CLASS.cast(magnitude.add(NORMAL_BIAS).add(odd).lanewise(VectorOperators.LSHR, 13));
        IntVector small = INTS_CLASS.cast(FLOATS_CLASS.cast(magnitude.reinterpretAsFloats()).add(DENORMAL_MAGIC)
            .reinterpretAsInts()).sub(DENORMAL_MAGIC_BITS);
        IntVector half = normal.blend(small, subnormal).blend(HALF_INFINITY, overflow);
        return half.or(INTS_CLASS.cast(sign.lanewise(VectorOperators.LSHR, 16)));
    }
}
