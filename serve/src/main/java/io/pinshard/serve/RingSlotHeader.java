package io.pinshard.serve;

import static io.pinshard.serve.RingDescriptor.*;

import org.agrona.concurrent.AtomicBuffer;

/**
 * Flyweight over one slot header ({@link RingDescriptor}, 128 bytes per slot from
 * {@value RingDescriptor#SLOT_HEADERS_OFFSET}). The server writes STREAM, INDEX, EPOCH, SIZE and the three array
 * offsets plainly, then releases SEQUENCE (and the server block's PUBLISHED): a reader that loads SEQUENCE with
 * acquire semantics ({@link #sequenceVolatile()}) sees the header and the pixels the workers wrote. RELEASED, on the
 * header's second cache line, is the client's: it stores the sequence it is done with, with release semantics, and
 * the server's acquire load of it hands the slot back to the workers.
 *
 * <p>{@link #wrap} takes the header's own offset in {@code buffer}; {@link #wrapSlot} computes it for slot
 * {@code s} of a ring starting at 0. A reader checks a published header with {@link RingDescriptor#checkSlot} before
 * it uses the offsets.
 */
public final class RingSlotHeader {
    private AtomicBuffer buffer;
    private int offset;
    private int slot = -1;

    /** Points this view at the slot header at {@code offset} (slot number unknown). Pure: checks nothing. */
    public RingSlotHeader wrap(AtomicBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        this.slot = -1;
        return this;
    }

    /** Points this view at slot {@code slot}'s header in a ring that starts at 0 of {@code buffer}. */
    public RingSlotHeader wrapSlot(AtomicBuffer buffer, int slot) {
        wrap(buffer, slotHeaderOffset(slot));
        this.slot = slot;
        return this;
    }

    /** The slot this view was pointed at by {@link #wrapSlot}, or -1. */
    public int slot() {
        return slot;
    }

    /** SEQUENCE, acquire: 0 for never used, else the sequence of the batch it holds. */
    public long sequenceVolatile() {
        return buffer.getLongVolatile(offset + SLOT_SEQUENCE_OFFSET);
    }

    /** SEQUENCE, plain: for a reader that already synchronised on it (or on PUBLISHED). */
    public long sequence() {
        return buffer.getLong(offset + SLOT_SEQUENCE_OFFSET);
    }

    /** Publishes the slot: the header fields and the slot's data written before this store are visible with it. */
    public RingSlotHeader sequenceRelease(long sequence) {
        buffer.putLongRelease(offset + SLOT_SEQUENCE_OFFSET, sequence);
        return this;
    }

    /** The command whose stream this batch belongs to. */
    public long stream() {
        return buffer.getLong(offset + SLOT_STREAM_OFFSET);
    }

    public RingSlotHeader stream(long command) {
        buffer.putLong(offset + SLOT_STREAM_OFFSET, command);
        return this;
    }

    /** The batch's number in its epoch. */
    public long index() {
        return buffer.getLong(offset + SLOT_INDEX_OFFSET);
    }

    public RingSlotHeader index(long index) {
        buffer.putLong(offset + SLOT_INDEX_OFFSET, index);
        return this;
    }

    public int epoch() {
        return buffer.getInt(offset + SLOT_EPOCH_OFFSET);
    }

    public RingSlotHeader epoch(int epoch) {
        buffer.putInt(offset + SLOT_EPOCH_OFFSET, epoch);
        return this;
    }

    /** Samples in the batch (the last of an epoch may hold fewer than the capacity). */
    public int size() {
        return buffer.getInt(offset + SLOT_SIZE_OFFSET);
    }

    public RingSlotHeader size(int size) {
        buffer.putInt(offset + SLOT_SIZE_OFFSET, size);
        return this;
    }

    /** File offset of the batch's images (uint8 NHWC). */
    public long imagesOffset() {
        return buffer.getLong(offset + SLOT_IMAGES_OFFSET);
    }

    public RingSlotHeader imagesOffset(long fileOffset) {
        buffer.putLong(offset + SLOT_IMAGES_OFFSET, fileOffset);
        return this;
    }

    /** File offset of the batch's labels (int32 each). */
    public long labelsOffset() {
        return buffer.getLong(offset + SLOT_LABELS_OFFSET);
    }

    public RingSlotHeader labelsOffset(long fileOffset) {
        buffer.putLong(offset + SLOT_LABELS_OFFSET, fileOffset);
        return this;
    }

    /** File offset of the batch's sample ids (int64 each). */
    public long idsOffset() {
        return buffer.getLong(offset + SLOT_IDS_OFFSET);
    }

    public RingSlotHeader idsOffset(long fileOffset) {
        buffer.putLong(offset + SLOT_IDS_OFFSET, fileOffset);
        return this;
    }

    /** RELEASED, acquire: the last sequence the client is done with in this slot. */
    public long releasedVolatile() {
        return buffer.getLongVolatile(offset + SLOT_RELEASED_OFFSET);
    }

    /** The client hands sequence {@code sequence}'s slot back; its reads of the slot happen before. */
    public RingSlotHeader releasedRelease(long sequence) {
        buffer.putLongRelease(offset + SLOT_RELEASED_OFFSET, sequence);
        return this;
    }
}
