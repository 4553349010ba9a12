package io.pinshard.loader.sample;

/**
 * Stateless SplitMix64 mixing and a tiny mutable generator over it. Every random decision of the
 * loader derives from {@code mix(seed, epoch, record)} so results never depend on which thread ran a
 * sample or when. The mutable form is reused per worker: re-seeding allocates nothing.
 */
public final class SplitMix {
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;
    private long state;

    /** The SplitMix64 finaliser: a bijective 64-bit hash. */
    public static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    public static long mix(long a, long b) {
        return mix(mix(a + GOLDEN) + b * GOLDEN);
    }

    public static long mix(long a, long b, long c) {
        return mix(mix(a, b), c);
    }

    public SplitMix seed(long seed) {
        state = seed;
        return this;
    }

    long nextLong() {
        state += GOLDEN;
        return mix(state);
    }

    /** Uniform in [0, 1). */
    public double nextDouble() {
        return (nextLong() >>> 11) * 0x1.0p-53;
    }

    /** Uniform in [lo, hi). */
    public double uniform(double lo, double hi) {
        return lo + (hi - lo) * nextDouble();
    }

    /** Uniform in [0, bound), bound > 0 (Lemire's multiply-shift; the bias is below 2^-32 for int bounds). */
    public int nextInt(int bound) {
        return (int) (((nextLong() >>> 32) * bound) >>> 32);
    }
}
