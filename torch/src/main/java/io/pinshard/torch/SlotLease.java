package io.pinshard.torch;

import io.pinshard.loader.ring.SlotMemoryHold;

/**
 * What one libtorch storage over a ring slot holds until {@link SlotDeleter} runs for it: the slot's memory (so a
 * loader closed meanwhile frees every other slot but not this one), and, once the trainer kept a view of the
 * storage past its batch's close, that batch too ({@link SlotReturn}): the workers get the slot back only when
 * the last view is gone, so a kept view never sees another batch's pixels.
 */
final class SlotLease {
    private final SlotMemoryHold memory;
    private volatile SlotReturn owed;

    SlotLease(SlotMemoryHold memory) {
        this.memory = memory;
    }

    /** The batch this storage's views now keep: returned to the loader when the storage dies. */
    void owe(SlotReturn batch) {
        owed = batch;
    }

    /** The storage died (the deleter; any thread): return the batch owed, then let the memory go. */
    void end() {
        SlotReturn batch = owed;
        try {
            if (batch != null) {
                batch.storageFreed();
            }
        } finally {
            memory.close();
        }
    }
}
