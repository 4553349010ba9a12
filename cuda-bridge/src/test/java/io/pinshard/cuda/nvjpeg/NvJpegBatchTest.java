package io.pinshard.cuda.nvjpeg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.cuda.runtime.CudaAvailability;
import io.pinshard.cuda.runtime.CudaException;
import io.pinshard.memory.HostMemoryAllocator;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The nvJPEG path's host side, which needs no GPU: the argument block's layout, what {@link NvJpegBatch#add} writes
 * there for real JPEGs, the payloads it refuses (naming the record) and the status texts. The decode itself is
 * {@code NvJpegDecoderGpuTest}'s, which skips without a device.
 */
class NvJpegBatchTest {
    private static final long DEVICE = 0x7f00_0000_0000L; // an address the batch only records, never touches
    private final HostMemoryAllocator allocator = new HostMemoryAllocator();

    @AfterEach
    void noLeak() {
        assertEquals(0, allocator.liveRegions(), "every batch block is freed");
    }

    @Test
    void theLayoutIsRunningSumsOfItsArrays() {
        assertEquals(64, NvJpegBatchDescriptor.IMAGE_LENGTH, "sizeof(nvjpegImage_t) on 64-bit hosts");
        assertEquals(32, NvJpegBatchDescriptor.IMAGE_PITCH_OFFSET);
        assertEquals(0, NvJpegBatchDescriptor.sourcesOffset(10));
        assertEquals(80, NvJpegBatchDescriptor.lengthsOffset(10));
        assertEquals(160, NvJpegBatchDescriptor.imagesOffset(10));
        assertEquals(160 + 640, NvJpegBatchDescriptor.blockLength(10));
        assertEquals(1602L * 256, NvJpegBatchDescriptor.outputStride(320, 427), "409,920 bytes rounded up to 256");
        assertEquals(0, NvJpegBatchDescriptor.outputStride(320, 427) % 256);
        assertThrows(IllegalArgumentException.class, () -> NvJpegBatchDescriptor.blockLength(0));
        assertThrows(IllegalArgumentException.class, () -> NvJpegBatchDescriptor.blockLength(1 << 17));
        assertThrows(IllegalArgumentException.class, () -> NvJpegBatchDescriptor.outputStride(0, 5));
        assertThrows(IllegalArgumentException.class, () -> NvJpegBatchDescriptor.outputStride(5, 65536));
    }

    @Test
    void addWritesEachImagesSourceLengthSlotAndPitch() {
        byte[] a = TestJpegs.encode(TestJpegs.rgb(40, 56, 1));
        byte[] b = TestJpegs.encode(TestJpegs.gray(33, 17));
        byte[] c = TestJpegs.encode(TestJpegs.rgb(64, 64, 2));
        ByteBuffer shard = TestJpegs.packed(a, b, c);
        long base = BufferUtil.address(shard);
        try (NvJpegBatch batch = new NvJpegBatch(allocator, 4, 64, 64)) {
            long stride = batch.outputStride();
            batch.reset(DEVICE, 4 * stride);
            assertEquals(0, batch.add(base, a.length, 100, 40, 56));
            assertEquals(1, batch.add(base + a.length, b.length, 101, 0, 0));
            assertEquals(2, batch.add(base + a.length + b.length, c.length, 102, 64, 64));
            assertEquals(3, batch.count());
            UnsafeBuffer sources = new UnsafeBuffer(batch.sourcesAddress(), 4 * 8);
            UnsafeBuffer lengths = new UnsafeBuffer(batch.lengthsAddress(), 4 * 8);
            UnsafeBuffer images = new UnsafeBuffer(batch.imagesAddress(), 4 * 64);
            long[] offsets = {0, a.length, a.length + b.length};
            int[][] sizes = {{40, 56, a.length}, {33, 17, b.length}, {64, 64, c.length}};
            for (int i = 0; i < 3; i++) {
                assertEquals(base + offsets[i], sources.getLong(i * 8, ByteOrder.LITTLE_ENDIAN));
                assertEquals(sizes[i][2], lengths.getLong(i * 8, ByteOrder.LITTLE_ENDIAN));
                assertEquals(DEVICE + i * stride, images.getLong(i * 64, ByteOrder.LITTLE_ENDIAN), "channel[0]");
                assertEquals(sizes[i][1] * 3L, images.getLong(i * 64 + 32, ByteOrder.LITTLE_ENDIAN), "pitch[0]");
                for (int unused = 1; unused < 4; unused++) {
                    assertEquals(0, images.getLong(i * 64 + unused * 8), "channel[" + unused + "]");
                    assertEquals(0, images.getLong(i * 64 + 32 + unused * 8), "pitch[" + unused + "]");
                }
                assertEquals(sizes[i][0], batch.height(i));
                assertEquals(sizes[i][1], batch.width(i));
                assertEquals(100 + i, batch.record(i));
                assertEquals(DEVICE + i * stride, batch.outputAddress(i));
            }
            assertThrows(IndexOutOfBoundsException.class, () -> batch.height(3));
            batch.reset(DEVICE, stride);
            assertEquals(0, batch.count(), "reset empties the batch");
        }
    }

    @Test
    void hostilePayloadsAreRefusedNamingTheRecordAndLeaveTheBatchAsItWas() {
        byte[] good = TestJpegs.encode(TestJpegs.rgb(24, 24, 3));
        byte[] big = TestJpegs.encode(TestJpegs.rgb(40, 20, 4));
        byte[] noEnd = Arrays.copyOf(good, good.length - 2);
        byte[] notJpeg = new byte[64];
        byte[] segmentPastEnd = Arrays.copyOf(good, 24); // a marker segment that runs past the payload
        segmentPastEnd[22] = (byte) 0xFF;
        segmentPastEnd[23] = (byte) 0xD9;
        byte[] badHuffman = good.clone(); // a Huffman table of 0xFF bytes: class, id and code counts out of range
        int dht = TestJpegs.markerAt(good, 0xC4);
        Arrays.fill(badHuffman, dht + 4, dht + 4 + 17, (byte) 0xFF);
        byte[] emptyScan = good.clone(); // what crashed nvJPEG on an H200: scan data all 0xFF fill bytes, then EOI
        int sos = TestJpegs.markerAt(good, 0xDA);
        Arrays.fill(emptyScan, sos + 2 + (((good[sos + 2] & 0xFF) << 8) | (good[sos + 3] & 0xFF)), good.length - 2,
            (byte) 0xFF);
        ByteBuffer shard = TestJpegs.packed(good, big, noEnd, notJpeg, segmentPastEnd, badHuffman, emptyScan);
        long base = BufferUtil.address(shard);
        try (NvJpegBatch batch = new NvJpegBatch(allocator, 2, 32, 32)) {
            batch.reset(DEVICE, 2 * batch.outputStride());
            assertRefused(() -> batch.add(base + good.length, big.length, 7, 0, 0), "record 7: a 40 x 20 JPEG exceeds");
            long at = base + good.length + big.length;
            assertRefused(() -> batch.add(at, noEnd.length, 8, 0, 0), "record 8: truncated JPEG: no end-of-image");
            assertRefused(() -> batch.add(at + noEnd.length, notJpeg.length, 9, 0, 0), "record 9: not a JPEG");
            assertRefused(() -> batch.add(at + noEnd.length + notJpeg.length, segmentPastEnd.length, 10, 0, 0),
                "record 10:");
            long afterPastEnd = at + noEnd.length + notJpeg.length + segmentPastEnd.length;
            assertRefused(() -> batch.add(afterPastEnd, badHuffman.length, 16, 0, 0),
                "record 16: corrupt JPEG: a malformed Huffman or quantisation table");
            assertRefused(() -> batch.add(afterPastEnd + badHuffman.length, emptyScan.length, 17, 0, 0),
                "record 17: corrupt JPEG: a scan holds no data");
            assertRefused(() -> batch.add(base, 3, 11, 0, 0), "record 11: a JPEG payload of 3 bytes");
            assertRefused(() -> batch.add(base, good.length, 12, 24, 25), "record 12: the JPEG stream is 24 x 24, the index says 24 x 25");
            assertEquals(0, batch.count(), "nothing was added for a refused payload");
            batch.add(base, good.length, 13, 24, 24);
            batch.add(base, good.length, 14, 24, 24);
            IllegalStateException full = assertThrows(IllegalStateException.class, () -> batch.add(base, good.length, 15, 0, 0));
            assertTrue(full.getMessage().contains("full"), full.getMessage());
        }
    }

    @Test
    void theOutputBufferMustHoldEverySlotAndAClosedBatchRefusesUse() {
        byte[] good = TestJpegs.encode(TestJpegs.rgb(16, 16, 5));
        ByteBuffer shard = TestJpegs.packed(good);
        long base = BufferUtil.address(shard);
        NvJpegBatch batch = new NvJpegBatch(allocator, 4, 16, 16);
        assertThrows(IllegalStateException.class, () -> batch.add(base, good.length, 0, 0, 0), "no reset yet");
        assertThrows(IllegalArgumentException.class, () -> batch.reset(DEVICE, batch.outputStride() - 1));
        batch.reset(DEVICE, batch.outputStride() + 10);
        batch.add(base, good.length, 0, 0, 0);
        IllegalStateException tooSmall = assertThrows(IllegalStateException.class, () -> batch.add(base, good.length, 1, 0, 0));
        assertTrue(tooSmall.getMessage().contains("does not fit"), tooSmall.getMessage());
        batch.close();
        batch.close();
        assertThrows(IllegalStateException.class, batch::sourcesAddress);
        assertThrows(IllegalStateException.class, () -> batch.reset(DEVICE, 1 << 20));
    }

    @Test
    void statusTextsNameNvJpegsCodesAndAMissingLibraryIsExplained() {
        assertTrue(NvJpegCheck.describeNvjpeg(3).startsWith("NVJPEG_STATUS_BAD_JPEG"));
        assertTrue(NvJpegCheck.describeNvjpeg(10).startsWith("NVJPEG_STATUS_INCOMPLETE_BITSTREAM"));
        assertTrue(NvJpegCheck.describeNvjpeg(99).contains("does not know"));
        CudaException e = assertThrows(CudaException.class, () -> NvJpegCheck.nvjpeg(4, "nvjpegDecodeBatched"));
        assertEquals("nvjpegDecodeBatched failed: status 4 (NVJPEG_STATUS_JPEG_NOT_SUPPORTED: a JPEG feature this"
            + " backend does not decode)", e.getMessage());
        String reason = CudaAvailability.explainLoadFailure(new UnsatisfiedLinkError(
            "/tmp/x/libjninvjpeg.so: libnvjpeg.so.13: cannot open shared object file: No such file or directory"));
        assertTrue(reason.startsWith("the nvJPEG library libnvjpeg.so.13 was not found"), reason);
    }

    @Test
    void availabilityGivesAReasonInsteadOfThrowing() {
        NvJpegAvailability.Status status = NvJpegAvailability.status();
        assertEquals(status, NvJpegAvailability.status(), "probed once");
        if (!status.available()) {
            assertFalse(status.reason().isEmpty());
            IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> NvJpegDecoder.open(NvJpegDecoder.Backend.DEFAULT, 1));
            assertTrue(e.getMessage().startsWith("nvJPEG unavailable: "), e.getMessage());
        } else {
            assertTrue(status.major() >= 12, status.describe());
        }
    }

    private static void assertRefused(org.junit.jupiter.api.function.Executable add, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, add);
        assertTrue(e.getMessage().startsWith(message), e.getMessage());
    }
}
