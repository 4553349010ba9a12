package io.pinshard.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** fp16 / bf16 rounding: hand-checked values, exhaustive round trips, and the JDK's conversion where it has one. */
class HalfFloatsTest {
    private static int f16(float f) {
        return HalfFloats.toFloat16(f) & 0xFFFF;
    }

    private static int bf16(float f) {
        return HalfFloats.toBfloat16(f) & 0xFFFF;
    }

    @Test
    void float16HandCheckedValues() {
        assertEquals(0x3C00, f16(1f));
        assertEquals(0xC000, f16(-2f));
        assertEquals(0x0000, f16(0f));
        assertEquals(0x8000, f16(-0f));
        assertEquals(0x7BFF, f16(65504f)); // largest finite half
        assertEquals(0x7BFF, f16(65519.99f)); // below the rounding boundary
        assertEquals(0x7C00, f16(65520f)); // ties to even -> overflows to infinity
        assertEquals(0x3C00, f16(1f + 0x1.0p-11f)); // tie, even mantissa stays
        assertEquals(0x3C02, f16(1f + 3 * 0x1.0p-11f)); // tie, odd mantissa rounds up
        assertEquals(0x3C01, f16(1f + 0x1.0p-11f + 0x1.0p-20f)); // just above the tie
        assertEquals(0x3555, f16(1f / 3f));
        assertEquals(0x0001, f16(0x1.0p-24f)); // smallest subnormal
        assertEquals(0x0000, f16(0x1.0p-25f)); // half of it: tie to even zero
        assertEquals(0x0001, f16(0x1.8p-25f)); // above the tie
        assertEquals(0x0400, f16(0x1.0p-14f)); // smallest normal
        assertEquals(0x03FF, f16(0x1.ff8p-15f)); // largest subnormal
        assertEquals(0x0400, f16(0x1.ffcp-15f)); // rounds up across into the normals
        assertEquals(0x7C00, f16(Float.POSITIVE_INFINITY));
        assertEquals(0xFC00, f16(Float.NEGATIVE_INFINITY));
        assertTrue(Float.isNaN(HalfFloats.fromFloat16(HalfFloats.toFloat16(Float.NaN))));
    }

    @Test
    void bfloat16HandCheckedValues() {
        assertEquals(0x3F80, bf16(1f));
        assertEquals(0xC000, bf16(-2f));
        assertEquals(0x3F80, bf16(1f + 0x1.0p-8f)); // tie, even stays
        assertEquals(0x3F82, bf16(1f + 3 * 0x1.0p-8f)); // tie, odd rounds up
        assertEquals(0x3F81, bf16(1f + 0x1.0p-8f + 0x1.0p-20f));
        assertEquals(0x7F80, bf16(Float.POSITIVE_INFINITY));
        assertEquals(0x7F80, bf16(Float.MAX_VALUE)); // rounds up to infinity
        assertTrue(Float.isNaN(HalfFloats.fromBfloat16(HalfFloats.toBfloat16(Float.NaN))));
        assertTrue(Float.isNaN(HalfFloats.fromBfloat16(HalfFloats.toBfloat16(Float.intBitsToFloat(0x7F800001)))),
            "a NaN whose payload sits in the low bits must not become infinity");
    }

    @Test
    void everyHalfRoundTrips() {
        for (int h = 0; h < 0x10000; h++) {
            float f = HalfFloats.fromFloat16((short) h);
            if (!Float.isNaN(f)) {
                assertEquals(h, f16(f), "half 0x" + Integer.toHexString(h));
            }
            float b = HalfFloats.fromBfloat16((short) h);
            if (!Float.isNaN(b)) {
                assertEquals(h, bf16(b), "bfloat16 0x" + Integer.toHexString(h));
            }
        }
    }

    @Test
    void roundsToTheNearestRepresentable() {
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 200_000; i++) {
            float f = (float) ((random.nextDouble() - 0.5) * 140_000);
            short h = HalfFloats.toFloat16(f);
            float back = HalfFloats.fromFloat16(h);
            if (Math.abs(f) < 65504f) {
                // No other half is nearer than the chosen one (neighbours are the adjacent bit patterns).
                float up = HalfFloats.fromFloat16((short) (h + 1));
                float down = HalfFloats.fromFloat16((short) (h - 1));
                assertTrue(Math.abs(back - f) <= Math.abs(up - f) && Math.abs(back - f) <= Math.abs(down - f),
                    f + " -> " + back);
            }
            short b = HalfFloats.toBfloat16(f);
            float bBack = HalfFloats.fromBfloat16(b);
            assertTrue(Math.abs(bBack - f) <= Math.abs(HalfFloats.fromBfloat16((short) (b + 1)) - f)
                && Math.abs(bBack - f) <= Math.abs(HalfFloats.fromBfloat16((short) (b - 1)) - f), f + " -> " + bBack);
        }
    }

    @Test
    void agreesWithTheJdkWhereItHasAConversion() throws Exception {
        Method jdk;
        try {
            jdk = Float.class.getMethod("floatToFloat16", float.class); // JDK 20+
        } catch (NoSuchMethodException e) {
            org.junit.jupiter.api.Assumptions.assumeTrue(false, "Float.floatToFloat16 needs JDK 20+; this is "
                + Runtime.version() + " (the other tests cover the conversion)");
            return;
        }
        SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < 1_000_000; i++) {
            float f = Float.intBitsToFloat(random.nextInt());
            if (Float.isNaN(f)) {
                continue;
            }
            short expected = (short) jdk.invoke(null, f);
            assertEquals(expected, HalfFloats.toFloat16(f), "float bits 0x" + Integer.toHexString(Float.floatToRawIntBits(f)));
        }
    }
}
