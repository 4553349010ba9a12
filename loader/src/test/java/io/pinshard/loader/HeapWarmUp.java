package io.pinshard.loader;

import io.pinshard.memory.HeapCounter;

/**
 * JIT warm-up before a zero-heap measurement, for tests and benchmarks (the reader's test-jar carries it
 * to other modules): code such as the Vector API kernel allocates until C2 has compiled it, and again for
 * a while after a deoptimisation.
 */
public final class HeapWarmUp {
    private HeapWarmUp() {
    }

    /**
     * Runs {@code round} until {@code quietRounds} rounds in a row allocate under 1 KiB on this thread, at
     * most {@code maxRounds} rounds.
     */
    public static void untilQuiet(Runnable round, int quietRounds, int maxRounds) {
        for (int rounds = 0, quiet = 0; rounds < maxRounds && quiet < quietRounds; rounds++) {
            long before = HeapCounter.currentThreadAllocatedBytes();
            round.run();
            quiet = HeapCounter.currentThreadAllocatedBytes() - before < 1024 ? quiet + 1 : 0;
        }
    }
}
