package io.pinshard.memory;

/**
 * float32 to IEEE fp16 and bfloat16 with round-to-nearest-even, and back. Java 17 has no
 * {@code Float.floatToFloat16}; the augmentation kernel ({@code augment.cu}) uses the same bit arithmetic, so the CPU
 * reference and the GPU agree bit for bit on the conversion.
 */
public final class HalfFloats {
    private HalfFloats() {
    }

    /** IEEE 754 binary16 bits of {@code f}, rounded to nearest even; NaN stays NaN, overflow gives infinity. */
    public static short toFloat16(float f) {
        int bits = Float.floatToRawIntBits(f);
        int sign = (bits >>> 16) & 0x8000;
        int exponent = (bits >>> 23) & 0xFF;
        int mantissa = bits & 0x7FFFFF;
        if (exponent == 0xFF) {
            return (short) (sign | 0x7C00 | (mantissa != 0 ? 0x200 | (mantissa >>> 13) : 0));
        }
        int e = exponent - 127 + 15;
        if (e >= 0x1F) {
            return (short) (sign | 0x7C00);
        }
        if (e <= 0) {
            if (e < -10) {
                return (short) sign;
            }
            // Subnormal half: shift the full 24-bit significand, rounding on the bits shifted out.
            int significand = mantissa | 0x800000;
            int shift = 14 - e;
            int half = significand >>> shift;
            int rest = significand & ((1 << shift) - 1);
            int halfway = 1 << (shift - 1);
            if (rest > halfway || (rest == halfway && (half & 1) != 0)) {
                half++;
            }
            return (short) (sign | half);
        }
        int half = sign | (e << 10) | (mantissa >>> 13);
        int rest = mantissa & 0x1FFF;
        if (rest > 0x1000 || (rest == 0x1000 && (half & 1) != 0)) {
            half++; // a carry into the exponent is the correct rounding (up to infinity)
        }
        return (short) half;
    }

    /** bfloat16 bits of {@code f} (the top half of the float32), rounded to nearest even; NaN stays a quiet NaN. */
    public static short toBfloat16(float f) {
        int bits = Float.floatToRawIntBits(f);
        if ((bits & 0x7FFFFFFF) > 0x7F800000) {
            return (short) ((bits >>> 16) | 0x40);
        }
        bits += 0x7FFF + ((bits >>> 16) & 1);
        return (short) (bits >>> 16);
    }

    /** The float value of binary16 bits (exact). */
    public static float fromFloat16(short h) {
        int bits = h & 0xFFFF;
        int sign = (bits & 0x8000) << 16;
        int exponent = (bits >>> 10) & 0x1F;
        int mantissa = bits & 0x3FF;
        if (exponent == 0x1F) {
            return Float.intBitsToFloat(sign | 0x7F800000 | (mantissa << 13));
        }
        if (exponent == 0) {
            float magnitude = mantissa * 0x1.0p-24f;
            return sign != 0 ? -magnitude : magnitude;
        }
        return Float.intBitsToFloat(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
    }

    /** The float value of bfloat16 bits (exact). */
    public static float fromBfloat16(short b) {
        return Float.intBitsToFloat((b & 0xFFFF) << 16);
    }
}
