package io.pinshard.serve;

import static io.pinshard.serve.RingDescriptor.*;

import org.agrona.concurrent.AtomicBuffer;

/**
 * Flyweight over the ring's client block ({@link RingDescriptor}, 128 bytes at
 * {@value RingDescriptor#CLIENT_BLOCK_OFFSET}): the fields only the attached client writes. SESSION is released
 * after CLIENT_PID and CLIENT_VERSION, COMMAND after COMMAND_KIND, COMMAND_EPOCH and COMMAND_START_BATCH; the server
 * reads each with an acquire load and the fields before it plainly. The server never trusts these values beyond
 * choosing among its own actions (docs/RING.md, §9).
 *
 * <p>{@link #wrap}'s {@code offset} is where the ring file starts in {@code buffer} (0 for a mapped ring).
 */
public final class RingClientBlock {
    private AtomicBuffer buffer;
    private int offset;

    /** Points this view at the ring file starting at {@code offset}. Pure: checks nothing. */
    public RingClientBlock wrap(AtomicBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    public long clientPidVolatile() {
        return buffer.getLongVolatile(offset + CLIENT_PID_OFFSET);
    }

    public RingClientBlock clientPid(long pid) {
        buffer.putLong(offset + CLIENT_PID_OFFSET, pid);
        return this;
    }

    /** The client's session (a random non-zero number per attach; 0 = detached). */
    public long sessionVolatile() {
        return buffer.getLongVolatile(offset + SESSION_OFFSET);
    }

    /** Attaches (or, with 0, detaches) after CLIENT_PID and CLIENT_VERSION were written. */
    public RingClientBlock sessionRelease(long session) {
        buffer.putLongRelease(offset + SESSION_OFFSET, session);
        return this;
    }

    public long clientHeartbeatVolatile() {
        return buffer.getLongVolatile(offset + CLIENT_HEARTBEAT_OFFSET);
    }

    public RingClientBlock clientHeartbeatRelease(long beat) {
        buffer.putLongRelease(offset + CLIENT_HEARTBEAT_OFFSET, beat);
        return this;
    }

    public int clientVersion() {
        return buffer.getInt(offset + CLIENT_VERSION_OFFSET);
    }

    public RingClientBlock clientVersion(int version) {
        buffer.putInt(offset + CLIENT_VERSION_OFFSET, version);
        return this;
    }

    /** {@link RingDescriptor#COMMAND_EPOCH} or {@link RingDescriptor#COMMAND_RESUME}. */
    public int commandKind() {
        return buffer.getInt(offset + COMMAND_KIND_OFFSET);
    }

    public RingClientBlock commandKind(int kind) {
        buffer.putInt(offset + COMMAND_KIND_OFFSET, kind);
        return this;
    }

    public int commandEpoch() {
        return buffer.getInt(offset + COMMAND_EPOCH_OFFSET);
    }

    public RingClientBlock commandEpoch(int epoch) {
        buffer.putInt(offset + COMMAND_EPOCH_OFFSET, epoch);
        return this;
    }

    public long commandStartBatch() {
        return buffer.getLong(offset + COMMAND_START_BATCH_OFFSET);
    }

    public RingClientBlock commandStartBatch(long batch) {
        buffer.putLong(offset + COMMAND_START_BATCH_OFFSET, batch);
        return this;
    }

    /** The latest command's number; its arguments are valid once this is read. */
    public long commandVolatile() {
        return buffer.getLongVolatile(offset + COMMAND_OFFSET);
    }

    /** Sends command {@code command}, after its kind, epoch and start batch were written. */
    public RingClientBlock commandRelease(long command) {
        buffer.putLongRelease(offset + COMMAND_OFFSET, command);
        return this;
    }
}
