package io.pinshard.loader.sample;

import java.util.Arrays;

/**
 * The quasi-random epoch order (shard then block): the dataset cut into shard-local windows of up to
 * {@code window} consecutive records, the windows visited in a keyed permutation ({@link Feistel}) and the records
 * of each window in a keyed permutation of their own. Memory O(windows): the windows' first records, made once,
 * and per buffer the epoch's window order with each slot's first position, filled by {@link #prepare} in one pass
 * over the windows. A position's record is a binary search over those slots and one small permutation.
 */
final class WindowOrder {
    private final int windows;
    /** First record of window {@code w}, and {@code records} at {@code [windows]}. */
    private final int[] windowStart;
    /** Per buffer: the window at each slot of the epoch order. */
    private final int[][] slotWindow;
    /** Per buffer: the first epoch-order position of each slot, and {@code records} at {@code [windows]}. */
    private final int[][] slotStart;
    /** Per buffer: the key the in-window permutations derive from. */
    private final long[] recordKey = new long[2];

    /**
     * @throws IllegalArgumentException when the windows would not fit an int array
     */
    WindowOrder(int records, long[] shardFirstRecord, int window) {
        long count = 0;
        for (int s = 0; s + 1 < shardFirstRecord.length; s++) {
            count += (shardFirstRecord[s + 1] - shardFirstRecord[s] + window - 1) / window;
        }
        if (count > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("quasi-random windows of " + window + " records cut " + records
                + " records into " + count + " windows, more than the loader keeps: use a larger window");
        }
        this.windows = (int) count;
        this.windowStart = new int[windows + 1];
        int w = 0;
        for (int s = 0; s + 1 < shardFirstRecord.length; s++) {
            for (long r = shardFirstRecord[s]; r < shardFirstRecord[s + 1]; r += window) {
                windowStart[w++] = (int) r;
            }
        }
        windowStart[windows] = records;
        this.slotWindow = new int[][] {new int[windows], new int[windows]};
        this.slotStart = new int[][] {new int[windows + 1], new int[windows + 1]};
    }

    /** Fills buffer {@code buffer} with the window order keyed by {@code orderKey}; allocation-free. */
    void prepare(int buffer, long orderKey, long recordKey) {
        int[] window = slotWindow[buffer];
        int[] start = slotStart[buffer];
        int at = 0;
        for (int i = 0; i < windows; i++) {
            int w = Feistel.permute(i, windows, orderKey);
            window[i] = w;
            start[i] = at;
            at += windowStart[w + 1] - windowStart[w];
        }
        start[windows] = at;
        this.recordKey[buffer] = recordKey;
    }

    /** The record at position {@code position} ({@code 0 .. records - 1}) of the order in {@code buffer}. */
    int recordAt(int buffer, int position) {
        int[] start = slotStart[buffer];
        int slot = Arrays.binarySearch(start, 0, windows + 1, position);
        slot = slot >= 0 ? slot : -slot - 2; // windows are never empty: the starts strictly increase
        int w = slotWindow[buffer][slot];
        int first = windowStart[w];
        int size = windowStart[w + 1] - first;
        return first + Feistel.permute(position - start[slot], size, SplitMix.mix(recordKey[buffer], w + 1L));
    }

    int windows() {
        return windows;
    }
}
