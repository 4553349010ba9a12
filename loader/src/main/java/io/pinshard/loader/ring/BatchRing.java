package io.pinshard.loader.ring;

import static io.pinshard.loader.ring.BatchRingDescriptor.HELD_TOTAL_OFFSET;
import static io.pinshard.loader.ring.BatchRingDescriptor.SLOT_FILLED_OFFSET;
import static io.pinshard.loader.ring.BatchRingDescriptor.SLOT_SEQUENCE_OFFSET;
import static io.pinshard.loader.ring.BatchRingDescriptor.TICKET_OFFSET;
import static io.pinshard.loader.ring.BatchRingDescriptor.slotOffset;
import static io.pinshard.loader.ring.BatchRingDescriptor.workerOffset;

import io.pinshard.loader.options.AugmentOptions;
import io.pinshard.loader.options.FieldSelection;
import io.pinshard.loader.options.RingOptions;
import io.pinshard.memory.NativeRegion;
import io.pinshard.reader.ReadGuard;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.agrona.CloseHelper;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The ring of batch slots and the lock-free protocol between workers and the consumer, kept in one
 * off-heap control block laid out by {@link BatchRingDescriptor} and operated with Agrona's atomic buffer
 * methods.
 *
 * <p>Batch {@code r} (counted from the start of a run, across the epochs it runs on) lives in slot
 * {@code r % S}. A worker that claimed a sample of batch {@code r} waits until the slot's sequence equals
 * {@code r}, writes the sample, then increments {@code filled} (a full fence: pixels are visible before the
 * count). The consumer takes batch {@code r} when sequence is {@code r} and filled equals its sample count;
 * releasing it zeroes filled and publishes sequence {@code r + S} (release store), opening the slot to the
 * workers again.
 *
 * <p>Lifetime: {@link #close()} frees the slots and the control block. Every access from outside the
 * worker threads (the consumer's {@code next()}, batch reads and releases on any thread, statistics) runs
 * inside the ring's {@link ReadGuard}, so close waits for those in progress and refuses later ones;
 * the workers are joined before close. A slot's memory is counted: the ring holds it until close, and each
 * {@link SlotMemoryHold} ({@link Batch#holdMemory()}) until it is closed; the last of them frees it.
 */
public final class BatchRing implements RingSlots, AutoCloseable {
    private final String owner;
    private final int slots;
    private final int workers;
    private final ReadGuard guard;
    private final NativeRegion controlRegion;
    private final UnsafeBuffer control;
    private final NativeRegion[] regions;
    private final Batch[] batches;
    /** Per slot: 1 for the ring until its close, plus the open {@link SlotMemoryHold}s; 0 once freed. */
    private final AtomicIntegerArray memoryHolders;
    private volatile long generation;

    /**
     * @param owner     the loader's name, for messages about use after close
     * @param ring      the slots, the workers counted in the control block, and where both are allocated
     * @param batchSize samples per slot
     * @param augment   what a sample is in its slot: the image's size and the fields beside it
     */
    public BatchRing(String owner, RingOptions ring, int batchSize, AugmentOptions augment) {
        this.owner = owner;
        this.guard = new ReadGuard(owner);
        this.slots = ring.prefetch();
        this.workers = ring.workers();
        long imageBytes = augment.imageBytes();
        long labelsOffset = BatchRingDescriptor.slotLabelsOffset(batchSize, imageBytes);
        long idsOffset = BatchRingDescriptor.slotIdsOffset(batchSize, imageBytes);
        FieldSelection fields = augment.fields();
        long slotBytes = BatchRingDescriptor.slotLength(batchSize, imageBytes, fields.count(), fields.stride());
        int controlBytes = BatchRingDescriptor.controlLength(slots, workers);
        this.regions = new NativeRegion[slots];
        this.batches = new Batch[slots];
        this.memoryHolders = new AtomicIntegerArray(slots);
        for (int s = 0; s < slots; s++) {
            memoryHolders.set(s, 1);
        }
        NativeRegion controlMemory = ring.scratchAllocator().allocate(controlBytes, BatchRingDescriptor.ALIGNMENT);
        this.controlRegion = controlMemory;
        try {
            BatchRingDescriptor.checkControlBlock(controlMemory.address(), controlMemory.length(), slots, workers);
            this.control = new UnsafeBuffer(controlMemory.address(), controlBytes);
            control.setMemory(0, controlBytes, (byte) 0);
            for (int s = 0; s < slots; s++) {
                regions[s] = ring.allocator().allocate(slotBytes, BatchRingDescriptor.SLOT_ALIGNMENT);
                BatchRingDescriptor.checkSlot(regions[s].address(), regions[s].length(), batchSize, imageBytes,
                    fields.count(), fields.stride());
                batches[s] = new Batch(this, s, regions[s], batchSize, augment.crop(), augment.pixels(), labelsOffset,
                    idsOffset, fields);
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    @Override
    public String owner() {
        return owner;
    }

    public int slots() {
        return slots;
    }

    public Batch batch(int slot) {
        return batches[slot];
    }

    public long generation() {
        return generation;
    }

    /** Enters a guarded access from outside the workers; false once the ring is closed. Pair with {@link #exit()}. */
    @Override
    public boolean enter() {
        return guard.tryAcquire();
    }

    @Override
    public void exit() {
        guard.release();
    }

    @Override
    public boolean isClosed() {
        return guard.isClosed();
    }

    /** Empties the ring for a new run (every worker idle and no batch held; inside {@link #enter()}). */
    public void reset() {
        generation++;
        control.putLong(TICKET_OFFSET, 0);
        control.putInt(HELD_TOTAL_OFFSET, 0);
        for (int s = 0; s < slots; s++) {
            int offset = slotOffset(s);
            control.putInt(offset + SLOT_FILLED_OFFSET, 0);
            batches[s].takeSkipped(); // replacements in discarded work are not the trainer's
            control.putLongVolatile(offset + SLOT_SEQUENCE_OFFSET, s);
        }
    }

    public long claimTicket() {
        return control.getAndAddLong(TICKET_OFFSET, 1);
    }

    /**
     * Worker side: waits until {@code slot} is open for ring batch {@code sequence}, of run segment
     * {@code segment}; false when the run stopped or failed at or before that segment.
     */
    public boolean awaitOpen(int slot, long sequence, IdleStrategy idle, RingRun run, int segment) {
        int offset = slotOffset(slot) + SLOT_SEQUENCE_OFFSET;
        idle.reset();
        while (control.getLongVolatile(offset) != sequence) {
            if (run.abandons(segment)) {
                return false;
            }
            idle.idle();
        }
        return true;
    }

    /** Counts a sample written into {@code slot} (a full fence); returns the samples written there so far. */
    public int sampleWritten(int slot) {
        return control.getAndAddInt(slotOffset(slot) + SLOT_FILLED_OFFSET, 1) + 1;
    }

    /** Consumer side: whether ring batch {@code sequence} is complete with {@code samples} samples. */
    public boolean ready(int slot, long sequence, int samples) {
        int offset = slotOffset(slot);
        return control.getLongVolatile(offset + SLOT_SEQUENCE_OFFSET) == sequence
            && control.getIntVolatile(offset + SLOT_FILLED_OFFSET) == samples;
    }

    /** Batches held by consumers (inside {@link #enter()}). */
    public int heldBatches() {
        return control.getIntVolatile(HELD_TOTAL_OFFSET);
    }

    /** Slots holding samples: being filled, ready, or held by a consumer (inside {@link #enter()}; for metrics). */
    public int occupiedSlots() {
        int occupied = 0;
        for (int s = 0; s < slots; s++) {
            if (control.getIntVolatile(slotOffset(s) + SLOT_FILLED_OFFSET) > 0) {
                occupied++;
            }
        }
        return occupied;
    }

    /** Counts a batch handed to the consumer (inside {@link #enter()}). */
    public void markHeld() {
        control.getAndAddInt(HELD_TOTAL_OFFSET, 1);
    }

    @Override
    public void release(int slot, long sequence, long runGeneration) {
        if (!guard.tryAcquire()) {
            return;
        }
        try {
            if (runGeneration != generation) {
                return;
            }
            int offset = slotOffset(slot);
            control.putInt(offset + SLOT_FILLED_OFFSET, 0);
            control.putLongRelease(offset + SLOT_SEQUENCE_OFFSET, sequence + slots);
            control.getAndAddInt(HELD_TOTAL_OFFSET, -1);
        } finally {
            guard.release();
        }
    }

    @Override
    public void retainMemory(int slot) {
        memoryHolders.incrementAndGet(slot);
    }

    @Override
    public void releaseMemory(int slot) {
        if (memoryHolders.decrementAndGet(slot) == 0 && regions[slot] != null) {
            regions[slot].close();
        }
    }

    /** Adds to worker {@code worker}'s counter at {@code field} (a WORKER_*_OFFSET; only that worker writes it). */
    public void addWorkerCounter(int worker, int field, long delta) {
        control.addLongRelease(workerOffset(slots, worker) + field, delta);
    }

    /** Sum of a worker counter over all workers (inside {@link #enter()}). */
    public long workerCounterSum(int field) {
        long sum = 0;
        for (int w = 0; w < workers; w++) {
            sum += control.getLongVolatile(workerOffset(slots, w) + field);
        }
        return sum;
    }

    /**
     * Frees the slots (those with a {@link SlotMemoryHold} open when its last hold closes) and the control block,
     * once guarded accesses in progress have left; later accesses are refused. The workers must have stopped.
     * Idempotent, callable from any thread.
     */
    @Override
    public void close() {
        // READERS_MAY_REMAIN (only after a shard faulted somewhere in this JVM) leaves the slots unfreed: a leak,
        // never a read of freed memory.
        if (guard.close() == ReadGuard.Outcome.CLOSED) {
            try {
                for (int s = 0; s < slots; s++) {
                    releaseMemory(s);
                }
            } finally {
                CloseHelper.close(controlRegion);
            }
        }
    }
}
