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

    private static final int SIGN = 0x8000_0000;
    /** float32 bits of the smallest value that is infinite in float16 after rounding: 65520. */
    private static final int HALF_OVERFLOW = (127 + 16) << 23;
    /** Below 2^-14 a float16 is subnormal. */
    private static final int HALF_NORMAL_MIN = 113 << 23;
    /** 0.5f: adding it aligns a subnormal float16's bits at the bottom of the float's mantissa, rounded by the FPU. */
    private static final int DENORMAL_MAGIC = ((127 - 15) + (23 - 10) + 1) << 23;
    private static final int HALF_INFINITY = 0x7C00;

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
        IntVector ints = ((IntVector) ByteVector.fromArray(BYTES, bytes, k).castShape(INTS, 0)).and(0xFF);
        return ((FloatVector) ints.castShape(FLOATS, 0)).fma(scale, shift);
    }

    /** {@code LANES} values to {@link #out} from value position {@code at}, in the element type. */
    private void store(DType type, FloatVector v, int at) {
        if (type == DType.FLOAT32) {
            v.reinterpretAsBytes().intoArray(out, at * Float.BYTES);
        } else if (type == DType.BFLOAT16) {
            IntVector bits = v.reinterpretAsInts();
            IntVector rounded = bits.add(bits.lanewise(VectorOperators.LSHR, 16).and(1)).add(0x7FFF)
                .lanewise(VectorOperators.LSHR, 16);
            narrow(rounded).reinterpretAsBytes().intoArray(out, at * Short.BYTES);
        } else if (type == DType.FLOAT16) {
            narrow(toHalf(v.reinterpretAsInts())).reinterpretAsBytes().intoArray(out, at * Short.BYTES);
        } else {
            ((ByteVector) v.convertShape(VectorOperators.F2B, BYTES, 0)).intoArray(out, at);
        }
    }

    private static ShortVector narrow(IntVector sixteenBits) {
        return (ShortVector) sixteenBits.convertShape(VectorOperators.I2S, SHORTS, 0);
    }

    /** float32 bits -> float16 bits, nearest even; the values are finite (PixelFormat checks them). */
    private static IntVector toHalf(IntVector bits) {
        IntVector sign = bits.and(SIGN);
        IntVector magnitude = bits.and(~SIGN);
        VectorMask<Integer> overflow = magnitude.compare(VectorOperators.GE, HALF_OVERFLOW);
        VectorMask<Integer> subnormal = magnitude.compare(VectorOperators.LT, HALF_NORMAL_MIN);
        IntVector odd = magnitude.lanewise(VectorOperators.LSHR, 13).and(1);
        IntVector normal = magnitude.add(((15 - 127) << 23) + 0xFFF).add(odd).lanewise(VectorOperators.LSHR, 13);
        IntVector small = magnitude.reinterpretAsFloats().add(Float.intBitsToFloat(DENORMAL_MAGIC)).reinterpretAsInts()
            .sub(DENORMAL_MAGIC);
        IntVector half = normal.blend(small, subnormal).blend(HALF_INFINITY, overflow);
        return half.or(sign.lanewise(VectorOperators.LSHR, 16));
    }
}
