package io.pinshard.loader.ring;

import static org.agrona.BitUtil.CACHE_LINE_LENGTH;

import org.agrona.BitUtil;

/**
 * Layout of the batch ring's memory, in the manner of Agrona's {@code RingBufferDescriptor}: the control
 * block shared by the workers and the consumer, and the layout of one batch slot. All offsets are absolute
 * (from the start of the control block or of the slot) and built as running sums.
 *
 * <h2>Control block</h2>
 * Every field that another thread writes sits in its own 128-byte block (two cache lines): adjacent-line
 * prefetch moves lines in aligned pairs, so writers that are only one line apart still contend. In
 * particular the ticket, bumped by every worker for every sample, is two lines away from the consumer's
 * held count. The block is allocated {@link #ALIGNMENT}-aligned so the pairs are the hardware's pairs.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+  TICKET_OFFSET = 0
 *  |              Ticket: next sample position (int64)             |  getAndAdd by every worker
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                      padding to 128 bytes                    ...
 *  +---------------------------------------------------------------+  HELD_TOTAL_OFFSET = 128
 *  |            Held batches (int32): consumer and releasers        |
 *  +---------------------------------------------------------------+
 *  |                      padding to 128 bytes                    ...
 *  +---------------------------------------------------------------+  SLOTS_OFFSET = 256
 *  |          Slot 0: sequence (int64), the ring batch it is         |  SLOT_SEQUENCE_OFFSET = 0
 *  |          open for; published by the consumer (release)          |
 *  +---------------------------------------------------------------+
 *  |          Slot 0: filled (int32), samples written (workers)      |  SLOT_FILLED_OFFSET = 8
 *  +---------------------------------------------------------------+
 *  |                      padding to 128 bytes                    ...
 *  +---------------------------------------------------------------+  SLOTS_OFFSET + s * SLOT_LENGTH
 *  |                    Slot 1 .. S-1, alike                      ...
 *  +---------------------------------------------------------------+  workersOffset(S)
 *  |   Worker 0: busy nanos, samples, payload bytes, heap bytes     |  WORKER_*_OFFSET = 0, 8, 16, 24
 *  |   (int64 each; written by that worker)                         |
 *  |                      padding to 128 bytes                    ...
 *  +---------------------------------------------------------------+  workersOffset(S) + w * WORKER_LENGTH
 *  |                    Worker 1 .. W-1, alike                    ...
 *  +---------------------------------------------------------------+  controlLength(S, W)
 * </pre>
 *
 * <h2>Batch slot</h2>
 * <pre>
 *  +---------------------------------------------------------------+  0
 *  |   Images: capacity x crop x crop x 3 uint8, NHWC               |
 *  +---------------------------------------------------------------+  slotLabelsOffset, 64-aligned
 *  |   Labels: capacity x int32                                     |
 *  +---------------------------------------------------------------+  slotIdsOffset, 64-aligned
 *  |   Record numbers: capacity x int64                             |
 *  +---------------------------------------------------------------+  slotFieldsOffset, 64-aligned
 *  |   Field 0: value lengths, capacity x int32                     |  fieldLengthsOffset(f)
 *  +---------------------------------------------------------------+  64-aligned
 *  |   Field 0: values, capacity x stride bytes (sample i at i x    |  fieldValuesOffset(f)
 *  |   stride; stride = bytes per sample rounded up to 8)           |
 *  +---------------------------------------------------------------+  64-aligned
 *  |   Field 1 .. F-1, alike (none without selected fields)        ...
 *  +---------------------------------------------------------------+  slotLength
 * </pre>
 * A slot is allocated {@link #SLOT_ALIGNMENT}-aligned (a page), so the images start on a page.
 */
public final class BatchRingDescriptor {
    /** Spacing of independently written fields: two cache lines (adjacent-line prefetch). */
    static final int PADDED_LENGTH = 2 * CACHE_LINE_LENGTH;
    /** Alignment of the control block. */
    static final int ALIGNMENT = PADDED_LENGTH;

    static final int TICKET_OFFSET = 0;
    static final int HELD_TOTAL_OFFSET = TICKET_OFFSET + PADDED_LENGTH;
    static final int SLOTS_OFFSET = HELD_TOTAL_OFFSET + PADDED_LENGTH;

    static final int SLOT_SEQUENCE_OFFSET = 0;
    static final int SLOT_FILLED_OFFSET = SLOT_SEQUENCE_OFFSET + Long.BYTES;
    static final int SLOT_LENGTH = PADDED_LENGTH;

    public static final int WORKER_BUSY_NANOS_OFFSET = 0;
    public static final int WORKER_SAMPLES_OFFSET = WORKER_BUSY_NANOS_OFFSET + Long.BYTES;
    public static final int WORKER_PAYLOAD_BYTES_OFFSET = WORKER_SAMPLES_OFFSET + Long.BYTES;
    public static final int WORKER_HEAP_BYTES_OFFSET = WORKER_PAYLOAD_BYTES_OFFSET + Long.BYTES;
    static final int WORKER_LENGTH = PADDED_LENGTH;

    /** Alignment of a batch slot (a page) and of each array inside it (a cache line). */
    static final int SLOT_ALIGNMENT = 4096;
    static final int SLOT_ARRAY_ALIGNMENT = CACHE_LINE_LENGTH;

    /** Bounds of {@link io.pinshard.loader.options.RingOptions#prefetch()} and {@link io.pinshard.loader.options.RingOptions#workers()}. */
    static final int MAX_SLOTS = 1024;
    static final int MAX_WORKERS = 1024;

    private BatchRingDescriptor() {
    }

    /** Offset of slot {@code slot}'s fields. */
    static int slotOffset(int slot) {
        return SLOTS_OFFSET + slot * SLOT_LENGTH;
    }

    /** Offset of the first worker's counters in a ring of {@code slots} slots. */
    static int workersOffset(int slots) {
        return slotOffset(slots);
    }

    /** Offset of worker {@code worker}'s counters in a ring of {@code slots} slots. */
    static int workerOffset(int slots, int worker) {
        return workersOffset(slots) + worker * WORKER_LENGTH;
    }

    /** Bytes of the control block of a ring of {@code slots} slots filled by {@code workers} workers. */
    static int controlLength(int slots, int workers) {
        checkSlots(slots);
        checkWorkers(workers);
        return workerOffset(slots, workers);
    }

    /** Offset of the labels in a slot of {@code capacity} images of {@code imageBytes} each. */
    static long slotLabelsOffset(int capacity, long imageBytes) {
        return BitUtil.align(capacity * imageBytes, SLOT_ARRAY_ALIGNMENT);
    }

    /** Offset of the record numbers in a slot. */
    static long slotIdsOffset(int capacity, long imageBytes) {
        return BitUtil.align(slotLabelsOffset(capacity, imageBytes) + (long) capacity * Integer.BYTES,
            SLOT_ARRAY_ALIGNMENT);
    }

    /** Offset of the first selected field's block in a slot: the end of the record numbers. */
    static long slotFieldsOffset(int capacity, long imageBytes) {
        return BitUtil.align(slotIdsOffset(capacity, imageBytes) + (long) capacity * Long.BYTES, SLOT_ARRAY_ALIGNMENT);
    }

    /** Bytes of one field's block: its lengths, then its values {@code stride} bytes apart. */
    static long fieldBlockLength(int capacity, int stride) {
        return BitUtil.align((long) capacity * Integer.BYTES, SLOT_ARRAY_ALIGNMENT)
            + BitUtil.align((long) capacity * stride, SLOT_ARRAY_ALIGNMENT);
    }

    /** Offset of field {@code field}'s value lengths in a slot. */
    public static long fieldLengthsOffset(int capacity, long imageBytes, int stride, int field) {
        return slotFieldsOffset(capacity, imageBytes) + field * fieldBlockLength(capacity, stride);
    }

    /** Offset of field {@code field}'s first value in a slot. */
    public static long fieldValuesOffset(int capacity, long imageBytes, int stride, int field) {
        return fieldLengthsOffset(capacity, imageBytes, stride, field)
            + BitUtil.align((long) capacity * Integer.BYTES, SLOT_ARRAY_ALIGNMENT);
    }

    /** Bytes of one slot without fields. */
    static long slotLength(int capacity, long imageBytes) {
        return slotLength(capacity, imageBytes, 0, 0);
    }

    /** Bytes of one slot carrying {@code fields} fields of {@code stride} bytes per sample. */
    static long slotLength(int capacity, long imageBytes, int fields, int stride) {
        return slotFieldsOffset(capacity, imageBytes) + fields * fieldBlockLength(capacity, stride);
    }

    static void checkSlots(int slots) {
        if (slots < 1 || slots > MAX_SLOTS) {
            throw new IllegalArgumentException("a batch ring has 1.." + MAX_SLOTS + " slots: " + slots);
        }
    }

    static void checkWorkers(int workers) {
        if (workers < 1 || workers > MAX_WORKERS) {
            throw new IllegalArgumentException("a batch ring has 1.." + MAX_WORKERS + " workers: " + workers);
        }
    }

    /** Checks memory an allocator handed out for a control block: long enough and {@link #ALIGNMENT}-aligned. */
    static void checkControlBlock(long address, long length, int slots, int workers) {
        checkRegion("control block", address, length, controlLength(slots, workers), ALIGNMENT);
    }

    /** Checks memory an allocator handed out for a slot. */
    static void checkSlot(long address, long length, int capacity, long imageBytes, int fields, int stride) {
        checkRegion("batch slot", address, length, slotLength(capacity, imageBytes, fields, stride), SLOT_ALIGNMENT);
    }

    private static void checkRegion(String what, long address, long length, long required, int alignment) {
        if (length < required) {
            throw new IllegalStateException("the allocator gave a " + what + " of " + length + " bytes; it needs "
                + required);
        }
        if (!BitUtil.isAligned(address, alignment)) {
            throw new IllegalStateException("the allocator gave a " + what + " at 0x" + Long.toHexString(address)
                + ", not " + alignment + "-byte aligned");
        }
    }
}
