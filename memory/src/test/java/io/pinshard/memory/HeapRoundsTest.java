package io.pinshard.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The rounds loops: the least round wins, they stop at the first quiet round, and a round that always allocates shows. */
class HeapRoundsTest {
    static volatile byte[] sink;

    @BeforeEach
    void counterPresent() {
        assumeTrue(HeapCounter.currentThreadAllocatedBytes() >= 0, "no thread allocation counter in this JVM");
    }

    /** A round that allocates 1 MiB in its first {@code noisy} runs and nothing after, counting its runs. */
    private static Runnable settlingAfter(int noisy, int[] runs) {
        return () -> {
            if (runs[0]++ < noisy) {
                sink = new byte[1 << 20];
            }
        };
    }

    @Test
    void leastStopsAtTheFirstRoundUnderEnough() {
        int[] runs = {0};
        long least = HeapRounds.least(6, HeapRounds.QUIET_BYTES, settlingAfter(2, runs));
        assertTrue(least < HeapRounds.QUIET_BYTES, "least " + least);
        assertEquals(3, runs[0], "two noisy rounds, then the quiet one ends it");
    }

    @Test
    void aRoundThatAlwaysAllocatesRunsEveryRoundAndShows() {
        int[] runs = {0};
        long least = HeapRounds.least(4, 0, settlingAfter(Integer.MAX_VALUE, runs));
        assertTrue(least >= 1 << 20, "least " + least);
        assertEquals(4, runs[0]);
    }

    @Test
    void measuredRoundsReturnTheirOwnFigures() {
        long[] figures = {900, 300, 700, 0, 5};
        int[] runs = {0};
        assertEquals(300, HeapRounds.leastMeasured(3, 0, round -> figures[runs[0]++]));
        assertEquals(3, runs[0]);
        runs[0] = 0;
        assertEquals(0, HeapRounds.leastMeasured(5, 0, round -> figures[round]));
        assertThrows(IllegalArgumentException.class, () -> HeapRounds.leastMeasured(0, 0, round -> 0));
    }

    @Test
    void untilQuietWaitsForQuietRoundsInARow() {
        int[] runs = {0};
        assertEquals(5, HeapRounds.untilQuiet(settlingAfter(3, runs), 2, 100));
        runs[0] = 0;
        assertEquals(7, HeapRounds.untilQuiet(settlingAfter(Integer.MAX_VALUE, runs), 2, 7), "stops at maxRounds");
    }
}
