package io.pinshard.loader.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import org.junit.jupiter.api.Test;

/** The keyed bijection behind the random order: a permutation of [0, n) for every n and key, and keyed. */
class FeistelTest {
    @Test
    void isAPermutationOfEveryDomainSizeAndKey() {
        long[] keys = {0, 1, -1, 42, SplitMix.mix(7, 3, 0x5EED)};
        for (int n = 1; n <= 600; n++) {
            for (long key : keys) {
                assertPermutation(n, key);
            }
        }
        // Just past and just below powers of two (the longest cycle walks), and an odd bit count.
        for (int n : new int[] {1 << 16, (1 << 16) + 1, (1 << 17) - 1, 1_000_003}) {
            assertPermutation(n, 27);
        }
    }

    @Test
    void keysGiveDifferentOrdersAndNoFixedPattern() {
        int n = 10_000;
        int same = 0;
        int fixed = 0;
        for (int x = 0; x < n; x++) {
            same += Feistel.permute(x, n, 1) == Feistel.permute(x, n, 2) ? 1 : 0;
            fixed += Feistel.permute(x, n, 1) == x ? 1 : 0;
        }
        // A random permutation agrees with another, or fixes, about one element; allow a few.
        assertTrue(same < 10, same + " places agree between two keys");
        assertTrue(fixed < 10, fixed + " fixed points");
    }

    @Test
    void longDomains() {
        long n = (1L << 40) + 12345;
        for (long x = n - 1000; x < n; x++) {
            long y = Feistel.permute(x, n, 5);
            assertTrue(y >= 0 && y < n, "in range: " + y);
        }
        assertFalse(Feistel.permute(0L, n, 5) == Feistel.permute(1L, n, 5));
    }

    private static void assertPermutation(int n, long key) {
        BitSet seen = new BitSet(n);
        for (int x = 0; x < n; x++) {
            int y = Feistel.permute(x, n, key);
            assertTrue(y >= 0 && y < n, "n " + n + " key " + key + ": " + x + " -> " + y);
            assertFalse(seen.get(y), "n " + n + " key " + key + ": " + y + " twice");
            seen.set(y);
        }
        assertEquals(n, seen.cardinality());
    }
}
