package io.pinshard.serve;

import static io.pinshard.serve.RingDescriptor.*;

import org.agrona.concurrent.AtomicBuffer;

/**
 * Flyweight over the ring's server block ({@link RingDescriptor}, 128 bytes at
 * {@value RingDescriptor#SERVER_BLOCK_OFFSET}): the fields only the server writes and the client watches. The
 * {@code *Release} setters are the stores a client reads with acquire semantics (docs/RING.md, "Memory ordering"):
 * STATUS, HEARTBEAT, ATTACHED_SESSION, ACK_COMMAND (after ACK_RESULT and the STREAM_* fields it publishes),
 * PUBLISHED and RECLAIMED; the {@code *Volatile} getters are the matching acquire loads. The other fields are written
 * plainly before the release that publishes them.
 *
 * <p>{@link #wrap}'s {@code offset} is where the ring file starts in {@code buffer} (0 for a mapped ring).
 */
public final class RingServerBlock {
    private AtomicBuffer buffer;
    private int offset;

    /** Points this view at the ring file starting at {@code offset}. Pure: checks nothing. */
    public RingServerBlock wrap(AtomicBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** STATUS, acquire: one of {@link RingDescriptor#STATUS_READY} and its siblings. */
    public int statusVolatile() {
        return buffer.getIntVolatile(offset + STATUS_OFFSET);
    }

    /** STATUS, plain: for a private copy of the block (a header read through the file, not the mapping). */
    public int status() {
        return buffer.getInt(offset + STATUS_OFFSET);
    }

    /** STATUS before the file is published (the rename orders it). */
    public RingServerBlock status(int status) {
        buffer.putInt(offset + STATUS_OFFSET, status);
        return this;
    }

    public RingServerBlock statusRelease(int status) {
        buffer.putIntRelease(offset + STATUS_OFFSET, status);
        return this;
    }

    public long heartbeatVolatile() {
        return buffer.getLongVolatile(offset + HEARTBEAT_OFFSET);
    }

    public RingServerBlock heartbeatRelease(long beat) {
        buffer.putLongRelease(offset + HEARTBEAT_OFFSET, beat);
        return this;
    }

    /** The client session the server serves, 0 for none. */
    public long attachedSessionVolatile() {
        return buffer.getLongVolatile(offset + ATTACHED_SESSION_OFFSET);
    }

    public RingServerBlock attachedSessionRelease(long session) {
        buffer.putLongRelease(offset + ATTACHED_SESSION_OFFSET, session);
        return this;
    }

    /** The last command acknowledged; its ACK_RESULT and STREAM_* fields are valid once this is read. */
    public long ackCommandVolatile() {
        return buffer.getLongVolatile(offset + ACK_COMMAND_OFFSET);
    }

    /** Publishes the acknowledgement of {@code command}, with the result and stream fields written before. */
    public RingServerBlock ackCommandRelease(long command) {
        buffer.putLongRelease(offset + ACK_COMMAND_OFFSET, command);
        return this;
    }

    public int ackResult() {
        return buffer.getInt(offset + ACK_RESULT_OFFSET);
    }

    public RingServerBlock ackResult(int result) {
        buffer.putInt(offset + ACK_RESULT_OFFSET, result);
        return this;
    }

    public int streamEpoch() {
        return buffer.getInt(offset + STREAM_EPOCH_OFFSET);
    }

    public RingServerBlock streamEpoch(int epoch) {
        buffer.putInt(offset + STREAM_EPOCH_OFFSET, epoch);
        return this;
    }

    /** The sequence of the stream's first batch. */
    public long streamFirstSequence() {
        return buffer.getLong(offset + STREAM_FIRST_SEQUENCE_OFFSET);
    }

    public RingServerBlock streamFirstSequence(long sequence) {
        buffer.putLong(offset + STREAM_FIRST_SEQUENCE_OFFSET, sequence);
        return this;
    }

    /** The batch of its epoch the stream starts at (0, or a resumed state's position). */
    public long streamStartBatch() {
        return buffer.getLong(offset + STREAM_START_BATCH_OFFSET);
    }

    public RingServerBlock streamStartBatch(long batch) {
        buffer.putLong(offset + STREAM_START_BATCH_OFFSET, batch);
        return this;
    }

    /** Batches the stream will publish. */
    public long streamBatches() {
        return buffer.getLong(offset + STREAM_BATCHES_OFFSET);
    }

    public RingServerBlock streamBatches(long batches) {
        buffer.putLong(offset + STREAM_BATCHES_OFFSET, batches);
        return this;
    }

    /** The highest sequence published so far. */
    public long publishedVolatile() {
        return buffer.getLongVolatile(offset + PUBLISHED_OFFSET);
    }

    public RingServerBlock publishedRelease(long sequence) {
        buffer.putLongRelease(offset + PUBLISHED_OFFSET, sequence);
        return this;
    }

    /** Slots the server took back from a client that did not release them (detached or dead), in all. */
    public long reclaimedVolatile() {
        return buffer.getLongVolatile(offset + RECLAIMED_OFFSET);
    }

    public RingServerBlock reclaimedRelease(long slots) {
        buffer.putLongRelease(offset + RECLAIMED_OFFSET, slots);
        return this;
    }

    /** The message block's text: why the server refused a command or failed ("" for none yet). */
    public String message() {
        int length = buffer.getInt(offset + MESSAGE_OFFSET);
        if (length < 0 || length > MESSAGE_MAX_BYTES) {
            return "";
        }
        return buffer.getStringWithoutLengthUtf8(offset + MESSAGE_TEXT_OFFSET, length);
    }

    /**
     * Writes {@code utf8}, cut to {@link RingDescriptor#MESSAGE_MAX_BYTES}, into the message block, its length last;
     * publish a status or result after it.
     */
    public RingServerBlock message(byte[] utf8) {
        int length = Math.min(utf8.length, MESSAGE_MAX_BYTES);
        buffer.putBytes(offset + MESSAGE_TEXT_OFFSET, utf8, 0, length);
        buffer.putInt(offset + MESSAGE_OFFSET, length);
        return this;
    }
}
