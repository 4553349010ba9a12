package io.pinshard.memory;

import java.util.function.IntToLongFunction;

/**
 * Zero-heap checks by rounds, for the tests, benchmarks and {@code bench}'s warm-up: the JIT allocates now and then
 * while it compiles and settles (and again after a deoptimisation), so one round says little, while code that
 * allocates per step does so in every round. The one home of the "least heap of N rounds" and "warm up until quiet"
 * loops; all counts come from {@link HeapCounter} on the calling thread.
 */
public final class HeapRounds {
    /** A round under this many bytes counts as quiet in {@link #untilQuiet}: JIT noise, not per-step work. */
    public static final long QUIET_BYTES = 1024;

    private HeapRounds() {
    }

    /** Heap bytes {@code work} allocated on this thread (0 where the JVM has no counter). */
    public static long allocatedBy(Runnable work) {
        long before = HeapCounter.currentThreadAllocatedBytes();
        work.run();
        return HeapCounter.currentThreadAllocatedBytes() - before;
    }

    /**
     * The least heap {@code round} allocated on this thread in up to {@code maxRounds} runs, stopping at the first run
     * that allocated at most {@code enough} bytes.
     */
    public static long least(int maxRounds, long enough, Runnable round) {
        return leastMeasured(maxRounds, enough, run -> allocatedBy(round));
    }

    /**
     * The least of up to {@code maxRounds} values {@code round} returns (round {@code 0, 1, ...}), stopping at the
     * first at most {@code enough}: for rounds that measure only part of their work themselves (an epoch's batches
     * after the first, not the epoch's start), with {@link #allocatedBy}.
     */
    public static long leastMeasured(int maxRounds, long enough, IntToLongFunction round) {
        if (maxRounds < 1) {
            throw new IllegalArgumentException("maxRounds must be at least 1: " + maxRounds);
        }
        long least = Long.MAX_VALUE;
        for (int run = 0; run < maxRounds && least > enough; run++) {
            least = Math.min(least, round.applyAsLong(run));
        }
        return least;
    }

    /**
     * JIT warm-up before a zero-heap measurement: runs {@code round} until {@code quietRounds} rounds in a row
     * allocate under {@link #QUIET_BYTES} on this thread, at most {@code maxRounds} rounds. Code such as the Vector
     * API kernel allocates until C2 has compiled it. Returns the rounds run.
     */
    public static int untilQuiet(Runnable round, int quietRounds, int maxRounds) {
        int rounds = 0;
        for (int quiet = 0; rounds < maxRounds && quiet < quietRounds; rounds++) {
            quiet = allocatedBy(round) < QUIET_BYTES ? quiet + 1 : 0;
        }
        return rounds;
    }

    /**
     * Heap per step once compiled: {@link #untilQuiet} ({@code round}, 3 quiet rounds, at most {@code maxWarmUpRounds}),
     * then the least heap of up to 5 runs of {@code repeats} rounds each, stopping at the first that allocated nothing.
     */
    public static long afterWarmUp(Runnable round, int maxWarmUpRounds, int repeats) {
        untilQuiet(round, 3, maxWarmUpRounds);
        return least(5, 0, () -> {
            for (int i = 0; i < repeats; i++) {
                round.run();
            }
        });
    }
}
