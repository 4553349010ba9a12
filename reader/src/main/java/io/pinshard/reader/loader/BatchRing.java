package io.pinshard.reader.loader;

import io.pinshard.memory.BatchMemoryAllocator;
import io.pinshard.memory.NativeRegion;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The ring of batch slots and the lock-free protocol between workers and the consumer, kept in one
 * off-heap control block of cache-line-padded counters operated with Agrona's atomic buffer methods.
 *
 * <pre>
 * control block (64-byte lines)
 *   line 0            ticket: next sample position to claim (getAndAdd by workers)
 *   line 1            held: batches currently held by consumers
 *   line 2 + s        slot s: sequence (long, the ring batch the slot is open for),
 *                     filled (int, samples written), held (int, 1 while a consumer holds it)
 *   line 2 + S + w    worker w: busy nanos, samples, payload bytes, skipped records, heap bytes (longs)
 * </pre>
 *
 * Batch {@code r} (counted from the start of a run) lives in slot {@code r % S}. A worker that claimed a
 * sample of batch {@code r} waits until the slot's sequence equals {@code r}, writes the sample, then
 * increments {@code filled} (a full fence: pixels are visible before the count). The consumer takes batch
 * {@code r} when sequence is {@code r} and filled equals its sample count; releasing it zeroes filled and
 * publishes sequence {@code r + S} (ordered store), opening the slot to the workers again.
 */
final class BatchRing implements AutoCloseable {
    private static final int LINE = 64;
    private static final int TICKET = 0;
    private static final int HELD_TOTAL = LINE;
    private static final int SLOTS = 2 * LINE;
    private static final int SEQUENCE = 0;
    private static final int FILLED = 8;
    private static final int HELD = 12;
    static final int BUSY_NANOS = 0;
    static final int SAMPLES = 8;
    static final int PAYLOAD_BYTES = 16;
    static final int SKIPPED = 24;
    static final int HEAP_BYTES = 32;

    private final int slots;
    private final int workers;
    private final NativeRegion controlRegion;
    private final UnsafeBuffer control;
    private final NativeRegion[] regions;
    private final Batch[] batches;
    private final long imageBytes;
    private volatile long generation;
    private volatile boolean closed;

    BatchRing(LoaderOptions options) {
        this.slots = options.prefetch();
        this.workers = options.workers();
        int batchSize = options.batchSize();
        this.imageBytes = (long) options.crop() * options.crop() * 3;
        long labelsOffset = align(batchSize * imageBytes, LINE);
        long idsOffset = align(labelsOffset + (long) batchSize * Integer.BYTES, LINE);
        long slotBytes = align(idsOffset + (long) batchSize * Long.BYTES, LINE);
        int controlBytes = SLOTS + (slots + workers) * LINE;
        this.regions = new NativeRegion[slots];
        this.batches = new Batch[slots];
        NativeRegion controlMemory = options.scratchAllocator().allocate(controlBytes, LINE);
        this.controlRegion = controlMemory;
        try {
            this.control = new UnsafeBuffer(controlMemory.address(), controlBytes);
            control.setMemory(0, controlBytes, (byte) 0);
            for (int s = 0; s < slots; s++) {
                regions[s] = options.allocator().allocate(slotBytes, 4096);
                batches[s] = new Batch(this, s, regions[s], batchSize, options.crop(), labelsOffset, idsOffset);
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    private static long align(long value, int alignment) {
        return (value + alignment - 1) & -alignment;
    }

    int slots() {
        return slots;
    }

    long imageBytes() {
        return imageBytes;
    }

    Batch batch(int slot) {
        return batches[slot];
    }

    long generation() {
        return generation;
    }

    /** Empties the ring for a new run (no worker may be running and no batch held). */
    void reset() {
        generation++;
        control.putLong(TICKET, 0);
        control.putInt(HELD_TOTAL, 0);
        for (int s = 0; s < slots; s++) {
            int line = slotLine(s);
            control.putInt(line + FILLED, 0);
            control.putInt(line + HELD, 0);
            control.putLongVolatile(line + SEQUENCE, s);
        }
    }

    long claimTicket() {
        return control.getAndAddLong(TICKET, 1);
    }

    /** Worker side: waits until {@code slot} is open for ring batch {@code sequence}; false when told to stop. */
    boolean awaitOpen(int slot, long sequence, IdleStrategy idle, Loader.Run run) {
        int line = slotLine(slot);
        idle.reset();
        while (control.getLongVolatile(line + SEQUENCE) != sequence) {
            if (run.stopping()) {
                return false;
            }
            idle.idle();
        }
        return true;
    }

    void sampleWritten(int slot) {
        control.getAndAddInt(slotLine(slot) + FILLED, 1);
    }

    /** Consumer side: whether ring batch {@code sequence} is complete with {@code samples} samples. */
    boolean ready(int slot, long sequence, int samples) {
        int line = slotLine(slot);
        return control.getLongVolatile(line + SEQUENCE) == sequence && control.getIntVolatile(line + FILLED) == samples;
    }

    int heldBatches() {
        return control.getIntVolatile(HELD_TOTAL);
    }

    void markHeld(int slot) {
        control.putIntVolatile(slotLine(slot) + HELD, 1);
        control.getAndAddInt(HELD_TOTAL, 1);
    }

    void release(int slot, long sequence, long runGeneration) {
        if (closed || runGeneration != generation) {
            return;
        }
        int line = slotLine(slot);
        if (!control.compareAndSetInt(line + HELD, 1, 0)) {
            return;
        }
        control.putInt(line + FILLED, 0);
        control.putLongOrdered(line + SEQUENCE, sequence + slots);
        control.getAndAddInt(HELD_TOTAL, -1);
    }

    /** Adds to worker {@code worker}'s counter at {@code field} (only that worker writes it). */
    void addWorkerCounter(int worker, int field, long delta) {
        int index = workerLine(worker) + field;
        control.putLongOrdered(index, control.getLong(index) + delta);
    }

    long workerCounterSum(int field) {
        long sum = 0;
        for (int w = 0; w < workers; w++) {
            sum += control.getLongVolatile(workerLine(w) + field);
        }
        return sum;
    }

    private int slotLine(int slot) {
        return SLOTS + slot * LINE;
    }

    private int workerLine(int worker) {
        return SLOTS + (slots + worker) * LINE;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (NativeRegion region : regions) {
            if (region != null) {
                region.close();
            }
        }
        if (controlRegion != null) {
            controlRegion.close();
        }
    }
}
