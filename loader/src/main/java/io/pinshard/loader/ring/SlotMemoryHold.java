package io.pinshard.loader.ring;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps one ring slot's memory allocated until {@link #close()}, even past {@link io.pinshard.loader.Loader#close()}: see
 * {@link Batch#holdMemory()}. Close it exactly when the code the memory was handed to is done with it; closing
 * is idempotent and allowed from any thread.
 */
public final class SlotMemoryHold implements AutoCloseable {
    private final RingSlots ring;
    private final int slot;
    private final AtomicBoolean open = new AtomicBoolean(true);

    SlotMemoryHold(RingSlots ring, int slot) {
        this.ring = ring;
        this.slot = slot;
    }

    /** Lets the slot's memory go: freed now if the loader closed already, else with the loader. */
    @Override
    public void close() {
        if (open.compareAndSet(true, false)) {
            ring.releaseMemory(slot);
        }
    }

    @Override
    public String toString() {
        return "memory hold on slot " + slot + " of " + ring.owner() + (open.get() ? "" : " (closed)");
    }
}
