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
 * L1; the destination is written once, by guarded copies. Only loaded with {@code jdk.incubator.vector}.
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
     * Vector constants that start each chain of vector calls: C2 knows no exact class for what fromArray,
     * castShape, convertShape and reinterpretAs* return, nor for the scalar forms' (and(e), add(e)) results, so a call
     * on one is bound by a type profile, which a compile under load may lack (then the vectors are heap objects).
     * ZERO.or(v) / ZERO.add(v) give the same lanes with an exact class (see VectorYuv420Rows).
     */
    private static final ByteVector ZERO_BYTES = ByteVector.zero(BYTES);
    private static final IntVector LOW_BYTE = IntVector.broadcast(INTS, 0xFF);
    private static final IntVector ZERO_INTS = IntVector.zero(INTS);
    private static final FloatVector ZERO_FLOATS = FloatVector.zero(FLOATS);
    private static final ShortVector ZERO_SHORTS = ShortVector.zero(SHORTS);
    private static final ByteVector ZERO_FLOAT_BYTES = ByteVector.zero(WIDE ? ByteVector.SPECIES_512 : ByteVector.SPECIES_256);
    private static final ByteVector ZERO_SHORT_BYTES = ByteVector.zero(WIDE ? ByteVector.SPECIES_256 : ByteVector.SPECIES_128);

    private static final int SIGN = 0x8000_0000;
    /** float32 bits of the smallest value that is infinite in float16 after rounding: 65520. */
    private static final int HALF_OVERFLOW = (127 + 16) << 23;
    /** Below 2^-14 a float16 is subnormal. */
    private static final int HALF_NORMAL_MIN = 113 << 23;
    /** 0.5f: adding it aligns a subnormal float16's bits at the bottom of the float's mantissa, rounded by the FPU. */
    private static final int DENORMAL_MAGIC = ((127 - 15) + (23 - 10) + 1) << 23;
    private static final int HALF_INFINITY = 0x7C00;
    private static final IntVector ONES = IntVector.broadcast(INTS, 1);
    private static final IntVector SIGN_BITS = IntVector.broadcast(INTS, SIGN);
    private static final IntVector MAGNITUDE_BITS = IntVector.broadcast(INTS, ~SIGN);
    private static final IntVector HALF_OVERFLOW_BITS = IntVector.broadcast(INTS, HALF_OVERFLOW);
    private static final IntVector HALF_NORMAL_MIN_BITS = IntVector.broadcast(INTS, HALF_NORMAL_MIN);
    private static final IntVector NORMAL_BIAS = IntVector.broadcast(INTS, ((15 - 127) << 23) + 0xFFF);
    private static final FloatVector DENORMAL_MAGIC_FLOATS = FloatVector.broadcast(FLOATS, Float.intBitsToFloat(DENORMAL_MAGIC));
    private static final IntVector MINUS_DENORMAL_MAGIC = IntVector.broadcast(INTS, -DENORMAL_MAGIC);
    private static final IntVector HALF_INFINITY_BITS = IntVector.broadcast(INTS, HALF_INFINITY);
    private static final IntVector ROUNDING = IntVector.broadcast(INTS, 0x7FFF);

    /** Per value of a row (NHWC order, padded to whole vectors): its channel's scale and shift. */
    private final float[] scale;
    private final float[] shift;
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

    /**
     * NHWC: the row's values in place, each with its channel's scale and shift. (Each layout has a method of its own:
     * one method with both loops grew past what C2 inlines, and its vectors became heap objects, 20 times slower.)
     */
    private void interleaved(byte[] row) {
        DType type = format.dtype();
        for (int k = 0; k < padded; k += LANES) {
            store(type, toFloats(row, k, FloatVector.fromArray(FLOATS, scale, k), FloatVector.fromArray(FLOATS, shift, k)),
                k);
        }
    }

    /** NCHW: the row split into its channels' rows, each converted to its plane's row in {@link #out}. */
    private void planes(byte[] row) {
        for (int p = 0, k = 0; p < crop; p++, k += CHANNELS) {
            channels[p] = row[k];
            channels[planeRow + p] = row[k + 1];
            channels[2 * planeRow + p] = row[k + 2];
        }
        for (int c = 0; c < CHANNELS; c++) {
            plane(c * planeRow, scale[c], shift[c]); // scale[c]: channel c's, as the row's value c
        }
    }

    private void plane(int at, float channelScale, float channelShift) {
        DType type = format.dtype();
        FloatVector times = FloatVector.broadcast(FLOATS, channelScale);
        FloatVector plus = FloatVector.broadcast(FLOATS, channelShift);
        for (int p = 0; p < crop; p += LANES) {
            store(type, toFloats(channels, at + p, times, plus), at + p);
        }
    }

    /** Bytes {@code k .. k + LANES - 1} of {@code bytes} -> float32, times scale plus shift (one rounding). */
    private static FloatVector toFloats(byte[] bytes, int k, FloatVector scale, FloatVector shift) {
        IntVector ints = LOW_BYTE.and(ZERO_BYTES.or(ByteVector.fromArray(BYTES, bytes, k)).castShape(INTS, 0));
        return ZERO_FLOATS.add(ints.castShape(FLOATS, 0)).fma(scale, shift); // + 0: the integers 0..255 unchanged
    }

    /** {@code LANES} values to {@link #out} from value position {@code at}, in the element type. */
    private void store(DType type, FloatVector v, int at) {
        if (type == DType.FLOAT32) {
            ZERO_FLOAT_BYTES.or(v.reinterpretAsBytes()).intoArray(out, at * Float.BYTES);
        } else if (type == DType.BFLOAT16) {
            IntVector bits = ZERO_INTS.or(v.reinterpretAsInts());
            IntVector rounded = ZERO_INTS.or(bits.lanewise(VectorOperators.LSHR, 16)).and(ONES).add(bits).add(ROUNDING)
                .lanewise(VectorOperators.LSHR, 16);
            ZERO_SHORT_BYTES.or(narrow(ZERO_INTS.or(rounded)).reinterpretAsBytes()).intoArray(out, at * Short.BYTES);
        } else if (type == DType.FLOAT16) {
            ZERO_SHORT_BYTES.or(narrow(toHalf(ZERO_INTS.or(v.reinterpretAsInts()))).reinterpretAsBytes())
                .intoArray(out, at * Short.BYTES);
        } else {
            ZERO_BYTES.or(v.convertShape(VectorOperators.F2B, BYTES, 0)).intoArray(out, at);
        }
    }

    private static ShortVector narrow(IntVector sixteenBits) {
        return ZERO_SHORTS.or(sixteenBits.convertShape(VectorOperators.I2S, SHORTS, 0));
    }

    /** float32 bits -> float16 bits, nearest even; the values are finite (PixelFormat checks them). */
    private static IntVector toHalf(IntVector bits) {
        IntVector sign = SIGN_BITS.and(bits);
        IntVector magnitude = MAGNITUDE_BITS.and(bits);
        VectorMask<Integer> overflow = magnitude.compare(VectorOperators.GE, HALF_OVERFLOW_BITS);
        VectorMask<Integer> subnormal = magnitude.compare(VectorOperators.LT, HALF_NORMAL_MIN_BITS);
        IntVector odd = ZERO_INTS.or(magnitude.lanewise(VectorOperators.LSHR, 13)).and(ONES);
        IntVector normal = ZERO_INTS.or(magnitude.add(NORMAL_BIAS).add(odd).lanewise(VectorOperators.LSHR, 13));
        IntVector small = MINUS_DENORMAL_MAGIC.add(DENORMAL_MAGIC_FLOATS.add(magnitude.reinterpretAsFloats())
            .reinterpretAsInts());
        IntVector half = normal.blend(small, subnormal).blend(HALF_INFINITY_BITS, overflow);
        return half.or(sign.lanewise(VectorOperators.LSHR, 16));
    }
}
