package io.pinshard.reader;

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntPredicate;

/**
 * The most shards a dataset keeps mapped at once, and which mapped shard gives up its mapping when another
 * one is needed: CLOCK (second chance), an approximation of least-recently-used that costs one plain byte
 * write per read. A slot is reserved before a shard is mapped, so the count of mappings never exceeds the
 * limit, even for a moment; a shard with a reader inside (a pinned record in a batch in flight) is never chosen
 * ({@link MappedShard#tryClose} refuses it), so when every mapped shard is in use the caller waits for a reader to
 * leave. Per shard state only (an int and a byte); callers hold this object's monitor for {@link #reserve} and
 * {@link #cancel}.
 */
final class MappingBound {
    /** Fewer mappings than this cannot serve a loader's workers (each may hold one shard and want a second). */
    static final int MIN_LIMIT = 16;

    private final int limit;
    /** Shard in each slot; -1 when the slot is free. */
    private final int[] slots;
    private final int[] freeSlots;
    private int freeCount;
    private final int[] slotOf;
    /** Set by every read of a shard (a hint, written without ordering), cleared as the clock hand passes. */
    private final byte[] referenced;
    private int hand;
    private int mapped;
    private int peak;

    MappingBound(int limit, int shards) {
        if (limit < MIN_LIMIT) {
            throw new IllegalArgumentException("a mapping limit below " + MIN_LIMIT + " cannot serve a loader: " + limit);
        }
        this.limit = limit;
        this.slots = new int[limit];
        Arrays.fill(slots, -1);
        this.freeSlots = new int[limit];
        for (int i = 0; i < limit; i++) {
            freeSlots[i] = limit - 1 - i;
        }
        this.freeCount = limit;
        this.slotOf = new int[shards];
        Arrays.fill(slotOf, -1);
        this.referenced = new byte[shards];
    }

    int limit() {
        return limit;
    }

    /** Marks {@code shard} recently used. */
    void used(int shard) {
        referenced[shard] = 1;
    }

    /**
     * Reserves a mapping for {@code shard}, evicting a shard not recently used when all are taken: {@code
     * tryEvict} unmaps a shard if no reader is inside it and says whether it did. Waits (parks) while every mapped
     * shard has a reader inside.
     */
    void reserve(int shard, IntPredicate tryEvict) {
        if (freeCount == 0) {
            for (long step = 0; ; step++) {
                int slot = hand;
                hand = hand + 1 == limit ? 0 : hand + 1;
                int candidate = slots[slot];
                if (candidate < 0) {
                    continue; // reserved by a load in progress
                }
                if (referenced[candidate] != 0) {
                    referenced[candidate] = 0;
                } else if (tryEvict.test(candidate)) {
                    slotOf[candidate] = -1;
                    slots[slot] = -1;
                    freeSlots[freeCount++] = slot;
                    mapped--;
                    break;
                }
                if (step > 2L * limit) {
                    LockSupport.parkNanos(10_000); // every shard has a reader inside: they leave within a record
                }
            }
        }
        int slot = freeSlots[--freeCount];
        slots[slot] = shard;
        slotOf[shard] = slot;
        referenced[shard] = 1;
        peak = Math.max(peak, ++mapped);
    }

    /** Gives back the mapping reserved for {@code shard} when mapping it failed. */
    void cancel(int shard) {
        int slot = slotOf[shard];
        if (slot >= 0) {
            slotOf[shard] = -1;
            slots[slot] = -1;
            freeSlots[freeCount++] = slot;
            mapped--;
        }
    }

    /** Mappings held or reserved now. */
    int mapped() {
        return mapped;
    }

    /** The most mappings held at once since the dataset opened. */
    int peak() {
        return peak;
    }
}
