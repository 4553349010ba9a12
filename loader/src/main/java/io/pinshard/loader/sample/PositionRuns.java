package io.pinshard.loader.sample;

import java.util.Arrays;

/**
 * An ascending sequence of distinct epoch-order positions held as runs of consecutive positions: what is left of
 * an epoch after a resize, without a list of the positions themselves. Its size is the number of runs, which the
 * split's arithmetic keeps O(ranks): each rank of a world consumes the head of one block, leaving at most one new
 * gap. Built once per resume (appending only, adjacent runs merged); then read-only, and its look-up
 * ({@link #positionAt}) is a binary search over the runs, allocation-free.
 */
final class PositionRuns {
    private int[] starts = new int[8];
    /** {@code before[i]}: the positions in runs {@code 0 .. i - 1}; {@code before[count]} is the size. */
    private int[] before = new int[9];
    private int count;

    /** Appends the positions {@code start .. start + length - 1}, past every position held. */
    void add(long start, long length) {
        if (length <= 0) {
            return;
        }
        if (count > 0 && end(count - 1) == start) {
            before[count] += (int) length;
            return;
        }
        if (count == starts.length) {
            starts = Arrays.copyOf(starts, 2 * count);
            before = Arrays.copyOf(before, 2 * count + 1);
        }
        starts[count] = (int) start;
        before[count + 1] = before[count] + (int) length;
        count++;
    }

    /** Positions held. */
    int size() {
        return before[count];
    }

    int runs() {
        return count;
    }

    /** The position at index {@code index} ({@code 0 .. size() - 1}) of the sequence. */
    int positionAt(int index) {
        int run = runOf(index);
        return starts[run] + index - before[run];
    }

    /** Appends the positions at indices {@code from .. to - 1} of this sequence to {@code out}. */
    void copyRange(int from, int to, PositionRuns out) {
        if (from >= to) {
            return;
        }
        for (int run = runOf(from); from < to; run++) {
            int take = Math.min(to, before[run + 1]) - from;
            out.add(starts[run] + (long) from - before[run], take);
            from += take;
        }
    }

    /** The positions held by both {@code a} and {@code b}. */
    static PositionRuns intersection(PositionRuns a, PositionRuns b) {
        PositionRuns out = new PositionRuns();
        int i = 0;
        int j = 0;
        while (i < a.count && j < b.count) {
            long from = Math.max(a.starts[i], b.starts[j]);
            long to = Math.min(a.end(i), b.end(j));
            out.add(from, to - from);
            if (a.end(i) < b.end(j)) {
                i++;
            } else {
                j++;
            }
        }
        return out;
    }

    /** One past the last position of run {@code run}. */
    private long end(int run) {
        return (long) starts[run] + before[run + 1] - before[run];
    }

    /** The run holding index {@code index}: runs are never empty, so {@code before} strictly increases. */
    private int runOf(int index) {
        int run = Arrays.binarySearch(before, 0, count + 1, index);
        return run >= 0 ? run : -run - 2;
    }
}
