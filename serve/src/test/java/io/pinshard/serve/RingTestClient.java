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
    private final RingServerBlock server = new RingServerBlock();
    private final RingClientBlock client = new RingClientBlock();
    private final RingSlotHeader slotHeader = new RingSlotHeader();
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
        server.wrap(buffer, 0);
        client.wrap(buffer, 0);
        this.session = session;
        command = Math.max(client.commandVolatile(), server.ackCommandVolatile());
        client.clientPid(pid).clientVersion(VERSION).sessionRelease(session);
        await(() -> server.attachedSessionVolatile() == session, "attach");
    }

    void beat() {
        client.clientHeartbeatRelease(++heartbeat);
    }

    /** Sends a command and waits for its acknowledgement; returns the result code. */
    int command(int kind, int epoch, long startBatch) {
        long mine = ++command;
        client.commandKind(kind).commandEpoch(epoch).commandStartBatch(startBatch).commandRelease(mine);
        await(() -> server.ackCommandVolatile() == mine, "command " + mine);
        firstSequence = server.streamFirstSequence();
        streamBatches = server.streamBatches();
        streamStartBatch = server.streamStartBatch();
        return server.ackResult();
    }

    String message() {
        return server.message();
    }

    /** Waits for sequence {@code sequence} and returns its slot, checked as a reader must. */
    int take(long sequence) {
        int[] slot = {-1};
        int slots = buffer.getInt(SLOT_COUNT_OFFSET);
        await(() -> {
            for (int s = 0; s < slots; s++) {
                if (slotHeader.wrapSlot(buffer, s).sequenceVolatile() == sequence) { // acquire
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
        return slotHeader.wrapSlot(buffer, slot).sequenceVolatile();
    }

    long index(int slot) {
        return slotHeader.wrapSlot(buffer, slot).index();
    }

    int size(int slot) {
        return slotHeader.wrapSlot(buffer, slot).size();
    }

    long imagesOffset(int slot) {
        return slotHeader.wrapSlot(buffer, slot).imagesOffset();
    }

    int label(int slot, int i) {
        return buffer.getInt((int) slotHeader.wrapSlot(buffer, slot).labelsOffset() + i * Integer.BYTES);
    }

    long sampleId(int slot, int i) {
        return buffer.getLong((int) slotHeader.wrapSlot(buffer, slot).idsOffset() + i * Long.BYTES);
    }

    void release(int slot, long sequence) {
        slotHeader.wrapSlot(buffer, slot).releasedRelease(sequence);
    }

    void detach() {
        client.sessionRelease(0);
    }

    void await(BooleanSupplier done, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what + "; status " + server.statusVolatile()
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
