package io.pinshard.serve;

import static io.pinshard.serve.RingDescriptor.*;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The client's side of the ring protocol in Java, as docs/RING.md states it, with acquire loads where the spec asks
 * for them: what the Python client does, for the protocol tests.
 */
final class RingTestClient implements AutoCloseable {
    final UnsafeBuffer buffer;
    private final MappedByteBuffer mapping;
    private final long session;
    private long command;
    private long heartbeat;
    long firstSequence;
    long streamBatches;
    long streamStartBatch;

    RingTestClient(Path path, long pid, long session) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size());
        }
        buffer = new UnsafeBuffer(mapping);
        checkHeader(buffer, buffer.capacity(), path.toString());
        this.session = session;
        command = Math.max(buffer.getLongVolatile(COMMAND_OFFSET), buffer.getLongVolatile(ACK_COMMAND_OFFSET));
        buffer.putLong(CLIENT_PID_OFFSET, pid);
        buffer.putInt(CLIENT_VERSION_OFFSET, VERSION);
        buffer.putLongRelease(SESSION_OFFSET, session);
        await(() -> buffer.getLongVolatile(ATTACHED_SESSION_OFFSET) == session, "attach");
    }

    void beat() {
        buffer.putLongRelease(CLIENT_HEARTBEAT_OFFSET, ++heartbeat);
    }

    /** Sends a command and waits for its acknowledgement; returns the result code. */
    int command(int kind, int epoch, long startBatch) {
        long mine = ++command;
        buffer.putInt(COMMAND_KIND_OFFSET, kind);
        buffer.putInt(COMMAND_EPOCH_OFFSET, epoch);
        buffer.putLong(COMMAND_START_BATCH_OFFSET, startBatch);
        buffer.putLongRelease(COMMAND_OFFSET, mine);
        await(() -> buffer.getLongVolatile(ACK_COMMAND_OFFSET) == mine, "command " + mine);
        firstSequence = buffer.getLong(STREAM_FIRST_SEQUENCE_OFFSET);
        streamBatches = buffer.getLong(STREAM_BATCHES_OFFSET);
        streamStartBatch = buffer.getLong(STREAM_START_BATCH_OFFSET);
        return buffer.getInt(ACK_RESULT_OFFSET);
    }

    String message() {
        int length = buffer.getInt(MESSAGE_OFFSET);
        return buffer.getStringWithoutLengthUtf8(MESSAGE_OFFSET + Integer.BYTES, length);
    }

    /** Waits for sequence {@code sequence} and returns its slot, checked as a reader must. */
    int take(long sequence) {
        int[] slot = {-1};
        int slots = buffer.getInt(SLOT_COUNT_OFFSET);
        await(() -> {
            for (int s = 0; s < slots; s++) {
                if (buffer.getLongVolatile(slotHeaderOffset(s) + SLOT_SEQUENCE_OFFSET) == sequence) { // acquire
                    slot[0] = s;
                    return true;
                }
            }
            return false;
        }, "sequence " + sequence);
        checkSlotOffsets(buffer, slot[0], "test ring");
        return slot[0];
    }

    long sequenceOf(int slot) {
        return buffer.getLongVolatile(slotHeaderOffset(slot) + SLOT_SEQUENCE_OFFSET);
    }

    long index(int slot) {
        return buffer.getLong(slotHeaderOffset(slot) + SLOT_INDEX_OFFSET);
    }

    int size(int slot) {
        return buffer.getInt(slotHeaderOffset(slot) + SLOT_SIZE_OFFSET);
    }

    long imagesOffset(int slot) {
        return buffer.getLong(slotHeaderOffset(slot) + SLOT_IMAGES_OFFSET);
    }

    int label(int slot, int i) {
        return buffer.getInt((int) buffer.getLong(slotHeaderOffset(slot) + SLOT_LABELS_OFFSET) + i * Integer.BYTES);
    }

    long sampleId(int slot, int i) {
        return buffer.getLong((int) buffer.getLong(slotHeaderOffset(slot) + SLOT_IDS_OFFSET) + i * Long.BYTES);
    }

    void release(int slot, long sequence) {
        buffer.putLongRelease(slotHeaderOffset(slot) + SLOT_RELEASED_OFFSET, sequence); // release
    }

    void detach() {
        buffer.putLongRelease(SESSION_OFFSET, 0);
    }

    void await(BooleanSupplier done, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what + "; status " + buffer.getInt(STATUS_OFFSET)
                    + ", message " + message());
            }
            beat();
            Thread.onSpinWait();
        }
    }

    @Override
    public void close() {
        IoUtil.unmap(mapping);
    }
}
