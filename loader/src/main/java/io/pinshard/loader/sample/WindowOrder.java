package io.pinshard.loader.sample;

import java.util.Arrays;

/**
 * The quasi-random epoch order (shard then block): the dataset cut into shard-local windows of up to
 * {@code window} consecutive records, the windows visited in a keyed permutation ({@link Feistel}), and each group
 * of {@code interleave} consecutive windows of that order (windows of different shards, as the permutation falls)
 * read in a keyed permutation of all their records together. One window at a time ({@code interleave} 1) keeps
 * every batch inside one shard; a group of them mixes neighbouring samples across shards at the same locality per
 * group (its windows are what the page cache or the shard cache must hold at once). Memory O(windows): the
 * windows' first records, made once, and per buffer the epoch's window order with each slot's first position,
 * filled by {@link #prepare} in one pass over the windows. A position's record is two binary searches over those
 * slots and one permutation of the group.
 */
final class WindowOrder {
    private final int windows;
    private final int interleave;
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
    WindowOrder(int records, long[] shardFirstRecord, int window, int interleave) {
        if (interleave < 1) {
            throw new IllegalArgumentException("quasi-random interleave must be at least 1 window: " + interleave);
        }
        this.interleave = interleave;
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
        int group = slotOf(start, 0, windows, position) / interleave;
        int firstSlot = group * interleave;
        int endSlot = Math.min(firstSlot + interleave, windows);
        int groupStart = start[firstSlot];
        int target = groupStart + Feistel.permute(position - groupStart, start[endSlot] - groupStart,
            SplitMix.mix(recordKey[buffer], group + 1L));
        int slot = slotOf(start, firstSlot, endSlot, target);
        return windowStart[slotWindow[buffer][slot]] + target - start[slot];
    }

    /** The slot in {@code [from, to)} whose positions hold {@code position}. */
    private static int slotOf(int[] start, int from, int to, int position) {
        int slot = Arrays.binarySearch(start, from, to + 1, position);
        return slot >= 0 ? slot : -slot - 2; // windows are never empty: the starts strictly increase
    }

    int interleave() {
        return interleave;
    }

    int windows() {
        return windows;
    }
}
