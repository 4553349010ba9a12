package io.pinshard.loader.ring;

/**
 * What a {@link Batch} and a {@link SlotMemoryHold} need of the ring whose slot they stand for: its guard, giving the
 * slot back to the workers, and the count of holders of the slot's memory. {@link BatchRing} is the one
 * implementation; the interface lets a batch use its ring without the batch's file and the ring's using each other
 * (the ring makes its batches).
 */
interface RingSlots {
    /** Name of the loader that owns the ring, for messages. */
    String owner();

    /** Enters a guarded access; false once the ring is closed. Pair with {@link #exit()}. */
    boolean enter();

    void exit();

    boolean isClosed();

    /**
     * Gives ring batch {@code sequence}'s slot back to the workers; called once per hand-out by {@link Batch#close()},
     * from any thread. Nothing to do once the ring is closed or a new run began ({@code runGeneration} is past).
     */
    void release(int slot, long sequence, long runGeneration);

    /** One more holder of {@code slot}'s memory (inside {@link #enter()}, so the ring's own hold is still there). */
    void retainMemory(int slot);

    /** Drops one holder of {@code slot}'s memory; the last one frees it (any thread). */
    void releaseMemory(int slot);
}
