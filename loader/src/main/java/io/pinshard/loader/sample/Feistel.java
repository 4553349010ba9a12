package io.pinshard.loader.sample;

/**
 * A keyed bijection of {@code [0, n)}, evaluated per element: the epoch order without an array of the epoch.
 *
 * <p>A Feistel network over the {@code b} bits of the next power of two {@code 2^b >= n}: the value is split into
 * a high half of {@code b - b/2} bits and a low half of {@code b/2} bits, and each of {@link #ROUNDS} rounds XORs
 * one half with a SplitMix64 hash of the other half and the round's key, alternating halves. Each round is its own
 * inverse given the untouched half, so the network is a bijection of {@code [0, 2^b)} for any key. Values that land
 * at or past {@code n} are put through the network again (cycle walking) until they fall inside: the walk follows
 * the cycle of the permutation through {@code x}, which returns to {@code x < n}, so it ends, and the first value
 * inside is a bijection of {@code [0, n)}. {@code 2^b < 2n}, so a walk takes fewer than two passes on average.
 *
 * <p>Six rounds: four already make a pseudo-random permutation of a Feistel network with random round functions
 * (Luby-Rackoff); two more cover the unbalanced halves of an odd {@code b}. Stateless and allocation-free, so
 * any number of threads evaluate it at once.
 */
public final class Feistel {
    /** Rounds of the network. */
    public static final int ROUNDS = 6;
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private Feistel() {
    }

    /**
     * The image of {@code x} under the bijection of {@code [0, n)} keyed by {@code key}.
     *
     * @param x   in {@code [0, n)}
     * @param n   the domain's size, {@code 1 .. 2^62}
     * @param key any value; different keys give (pseudo-)independent permutations
     */
    public static long permute(long x, long n, long key) {
        if (n <= 2) {
            return n == 2 ? x ^ (key & 1) : 0;
        }
        int bits = 64 - Long.numberOfLeadingZeros(n - 1);
        int lowBits = bits >>> 1;
        long lowMask = (1L << lowBits) - 1;
        long highMask = (1L << (bits - lowBits)) - 1;
        long y = x;
        do {
            y = network(y, lowBits, lowMask, highMask, key);
        } while (y >= n);
        return y;
    }

    /** One pass of the network over {@code [0, 2^bits)}. */
    private static long network(long value, int lowBits, long lowMask, long highMask, long key) {
        long high = value >>> lowBits;
        long low = value & lowMask;
        for (int round = 0; round < ROUNDS; round++) {
            long roundKey = key + (round + 1) * GOLDEN;
            if ((round & 1) == 0) {
                high ^= SplitMix.mix(roundKey ^ low) & highMask;
            } else {
                low ^= SplitMix.mix(roundKey ^ high) & lowMask;
            }
        }
        return (high << lowBits) | low;
    }

    /** {@link #permute(long, long, long)} for an int domain. */
    public static int permute(int x, int n, long key) {
        return (int) permute((long) x, (long) n, key);
    }
}
