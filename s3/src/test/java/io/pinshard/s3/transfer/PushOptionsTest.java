package io.pinshard.s3.transfer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** S3's part limits hold whatever the options say. */
class PushOptionsTest {
    private static final long MIB = 1L << 20;

    @Test
    void partsStayWithinS3sLimits() {
        PushOptions defaults = PushOptions.defaults();
        assertEquals(16 * MIB, defaults.partSizeFor(256 * MIB));
        // 10,000 parts of 16 MiB hold 156.25 GiB; one byte more needs larger parts, in whole MiB.
        assertEquals(16 * MIB, defaults.partSizeFor(10_000 * 16 * MIB));
        long larger = defaults.partSizeFor(10_000 * 16 * MIB + 1);
        assertEquals(17 * MIB, larger);
        assertThrows(IllegalArgumentException.class, () -> defaults.withMultipart(64 * MIB, 4 * MIB));
        assertThrows(IllegalArgumentException.class, () -> defaults.withMultipart(5 * MIB, 6 * MIB));
        assertThrows(IllegalArgumentException.class, () -> defaults.withThreads(0));
    }
}
