package io.pinshard.serve;

import static io.pinshard.serve.RingDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/**
 * The four ring flyweights against {@link RingDescriptor}: each setter writes its field at the descriptor's offset
 * and width and nothing else, each getter reads it back, and {@code wrap}'s offset moves every field with it (a
 * ring embedded at offset 4096 of a larger buffer). The Python client's {@code _layout.py} is generated from the same
 * constants, so the three agree.
 */
class RingFlyweightsTest {
    private static final int BASE = 4096;
    private final SplittableRandom random = new SplittableRandom(24);
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[BASE + (int) slotsOffset(4)]);

    @Test
    void headerFieldsSitAtTheDescriptorsOffsets() {
        RingHeader h = new RingHeader().wrap(buffer, BASE);
        assertFalse(h.hasMagic());
        h.magicAndVersion();
        assertTrue(h.hasMagic());
        assertEquals(VERSION, buffer.getInt(BASE + VERSION_OFFSET));
        int32(HEADER_LENGTH_OFFSET, v -> h.headerLength((int) v), h::headerLength);
        int64(FILE_LENGTH_OFFSET, h::fileLength, h::fileLength);
        int32(SLOT_COUNT_OFFSET, v -> h.slotCount((int) v), h::slotCount);
        int32(CAPACITY_OFFSET, v -> h.capacity((int) v), h::capacity);
        int32(HEIGHT_OFFSET, v -> h.height((int) v), h::height);
        int32(WIDTH_OFFSET, v -> h.width((int) v), h::width);
        int32(CHANNELS_OFFSET, v -> h.channels((int) v), h::channels);
        int32(FLAGS_OFFSET, v -> h.flags((int) v), h::flags);
        int64(SLOTS_OFFSET_OFFSET, h::slotsOffset, h::slotsOffset);
        int64(SLOT_STRIDE_OFFSET, h::slotStride, h::slotStride);
        int64(BATCHES_PER_EPOCH_OFFSET, h::batchesPerEpoch, h::batchesPerEpoch);
        int64(SAMPLES_PER_EPOCH_OFFSET, h::samplesPerEpoch, h::samplesPerEpoch);
        int64(RECORDS_OFFSET, h::records, h::records);
        int64(SEED_OFFSET, h::seed, h::seed);
        int32(RANK_OFFSET, v -> h.rank((int) v), h::rank);
        int32(WORLD_SIZE_OFFSET, v -> h.worldSize((int) v), h::worldSize);
        int64(SERVER_PID_OFFSET, h::serverPid, h::serverPid);
        int64(SERVER_START_MILLIS_OFFSET, h::serverStartMillis, h::serverStartMillis);
        int32(CLASS_COUNT_OFFSET, v -> h.classCount((int) v), h::classCount);
        h.height(224).width(200).channels(3);
        assertEquals(0, h.imageBytes(), "no pixel format: no image bytes");
        h.pixels(io.pinshard.loader.options.PixelFormat.UINT8_NHWC);
        assertEquals(224L * 200 * 3, h.imageBytes());
        io.pinshard.loader.options.PixelFormat half = io.pinshard.loader.options.PixelFormat.of(
            io.pinshard.memory.DType.FLOAT16, io.pinshard.loader.options.PixelFormat.Layout.NCHW,
            new double[] {0.5, 0.25, 0.125}, new double[] {2, 4, 8});
        h.pixels(half);
        assertEquals(2, buffer.getInt(BASE + DTYPE_CODE_OFFSET));
        assertEquals(16, buffer.getInt(BASE + DTYPE_BITS_OFFSET));
        assertEquals(LAYOUT_NCHW, buffer.getInt(BASE + LAYOUT_OFFSET));
        assertEquals(0.25, buffer.getDouble(BASE + MEAN_OFFSET + 8));
        assertEquals(8, buffer.getDouble(BASE + STD_OFFSET + 16));
        assertEquals(half, h.pixels());
        assertEquals(224L * 200 * 3 * 2, h.imageBytes());
        h.slotsOffset(8192).slotStride(12_288);
        assertEquals(8192 + 2 * 12_288, h.slotOffset(2));
    }

    @Test
    void serverBlockFieldsSitAtTheDescriptorsOffsets() {
        RingServerBlock s = new RingServerBlock().wrap(buffer, BASE);
        int32(STATUS_OFFSET, v -> s.statusRelease((int) v), s::statusVolatile);
        int32(STATUS_OFFSET, v -> s.status((int) v), s::status);
        int64(HEARTBEAT_OFFSET, s::heartbeatRelease, s::heartbeatVolatile);
        int64(ATTACHED_SESSION_OFFSET, s::attachedSessionRelease, s::attachedSessionVolatile);
        int64(ACK_COMMAND_OFFSET, s::ackCommandRelease, s::ackCommandVolatile);
        int32(ACK_RESULT_OFFSET, v -> s.ackResult((int) v), s::ackResult);
        int32(STREAM_EPOCH_OFFSET, v -> s.streamEpoch((int) v), s::streamEpoch);
        int64(STREAM_FIRST_SEQUENCE_OFFSET, s::streamFirstSequence, s::streamFirstSequence);
        int64(STREAM_START_BATCH_OFFSET, s::streamStartBatch, s::streamStartBatch);
        int64(STREAM_BATCHES_OFFSET, s::streamBatches, s::streamBatches);
        int64(PUBLISHED_OFFSET, s::publishedRelease, s::publishedVolatile);
        int64(RECLAIMED_OFFSET, s::reclaimedRelease, s::reclaimedVolatile);
    }

    @Test
    void messageIsCutToItsBlockAndAnImpossibleLengthReadsAsNone() {
        RingServerBlock s = new RingServerBlock().wrap(buffer, BASE);
        assertEquals("", s.message());
        s.message("refused: épоch 3".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertEquals("refused: épоch 3", s.message());
        s.message("x".repeat(10_000).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals(MESSAGE_MAX_BYTES, s.message().length());
        assertEquals(0, buffer.getByte(BASE + CLIENT_BLOCK_OFFSET), "the message stays inside its block");
        buffer.putInt(BASE + MESSAGE_OFFSET, MESSAGE_MAX_BYTES + 1);
        assertEquals("", s.message());
        buffer.putInt(BASE + MESSAGE_OFFSET, -1);
        assertEquals("", s.message());
    }

    @Test
    void clientBlockFieldsSitAtTheDescriptorsOffsets() {
        RingClientBlock c = new RingClientBlock().wrap(buffer, BASE);
        int64(CLIENT_PID_OFFSET, c::clientPid, c::clientPidVolatile);
        int64(SESSION_OFFSET, c::sessionRelease, c::sessionVolatile);
        int64(CLIENT_HEARTBEAT_OFFSET, c::clientHeartbeatRelease, c::clientHeartbeatVolatile);
        int32(CLIENT_VERSION_OFFSET, v -> c.clientVersion((int) v), c::clientVersion);
        int32(COMMAND_KIND_OFFSET, v -> c.commandKind((int) v), c::commandKind);
        int32(COMMAND_EPOCH_OFFSET, v -> c.commandEpoch((int) v), c::commandEpoch);
        int64(COMMAND_START_BATCH_OFFSET, c::commandStartBatch, c::commandStartBatch);
        int64(COMMAND_OFFSET, c::commandRelease, c::commandVolatile);
    }

    @Test
    void slotHeaderFieldsSitAtTheDescriptorsOffsetsOfEachSlot() {
        for (int slot = 0; slot < 4; slot++) {
            RingSlotHeader h = new RingSlotHeader().wrap(buffer, BASE + slotHeaderOffset(slot));
            int at = slotHeaderOffset(slot);
            int64(at + SLOT_SEQUENCE_OFFSET, h::sequenceRelease, h::sequenceVolatile);
            int64(at + SLOT_SEQUENCE_OFFSET, h::sequenceRelease, h::sequence);
            int64(at + SLOT_STREAM_OFFSET, h::stream, h::stream);
            int64(at + SLOT_INDEX_OFFSET, h::index, h::index);
            int32(at + SLOT_EPOCH_OFFSET, v -> h.epoch((int) v), h::epoch);
            int32(at + SLOT_SIZE_OFFSET, v -> h.size((int) v), h::size);
            int64(at + SLOT_IMAGES_OFFSET, h::imagesOffset, h::imagesOffset);
            int64(at + SLOT_LABELS_OFFSET, h::labelsOffset, h::labelsOffset);
            int64(at + SLOT_IDS_OFFSET, h::idsOffset, h::idsOffset);
            int64(at + SLOT_RELEASED_OFFSET, h::releasedRelease, h::releasedVolatile);
            assertEquals(-1, h.slot());
        }
        UnsafeBuffer ring = new UnsafeBuffer(new byte[(int) slotsOffset(4)]);
        RingSlotHeader h = new RingSlotHeader().wrapSlot(ring, 3).size(7);
        assertEquals(3, h.slot());
        assertEquals(7, ring.getInt(slotHeaderOffset(3) + SLOT_SIZE_OFFSET));
    }

    /** Writes a random value through {@code set}: it lands at {@code offset} (from the ring's start), 4 bytes. */
    private void int32(int offset, LongConsumer set, LongSupplier get) {
        int value = random.nextInt();
        byte[] before = snapshot();
        set.accept(value);
        assertEquals(value, buffer.getInt(BASE + offset), "field at " + offset);
        assertEquals(value, (int) get.getAsLong(), "getter of the field at " + offset);
        assertOnlyChanged(before, BASE + offset, Integer.BYTES);
    }

    private void int64(int offset, LongConsumer set, LongSupplier get) {
        long value = random.nextLong();
        byte[] before = snapshot();
        set.accept(value);
        assertEquals(value, buffer.getLong(BASE + offset), "field at " + offset);
        assertEquals(value, get.getAsLong(), "getter of the field at " + offset);
        assertOnlyChanged(before, BASE + offset, Long.BYTES);
    }

    private byte[] snapshot() {
        byte[] copy = new byte[buffer.capacity()];
        buffer.getBytes(0, copy);
        return copy;
    }

    private void assertOnlyChanged(byte[] before, int at, int width) {
        for (int i = 0; i < before.length; i++) {
            if (i < at || i >= at + width) {
                assertEquals(before[i], buffer.getByte(i), "byte " + i + " changed by the write at " + at);
            }
        }
    }
}
