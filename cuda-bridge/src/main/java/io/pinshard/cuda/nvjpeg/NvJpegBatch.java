package io.pinshard.cuda.nvjpeg;

import static io.pinshard.cuda.nvjpeg.NvJpegBatchDescriptor.IMAGE_CHANNEL_OFFSET;
import static io.pinshard.cuda.nvjpeg.NvJpegBatchDescriptor.IMAGE_LENGTH;
import static io.pinshard.cuda.nvjpeg.NvJpegBatchDescriptor.IMAGE_PITCH_OFFSET;
import static io.pinshard.cuda.nvjpeg.NvJpegBatchDescriptor.LENGTH_LENGTH;
import static io.pinshard.cuda.nvjpeg.NvJpegBatchDescriptor.MAX_COMPONENTS;
import static io.pinshard.cuda.nvjpeg.NvJpegBatchDescriptor.OUTPUT_CHANNELS;
import static io.pinshard.cuda.nvjpeg.NvJpegBatchDescriptor.SOURCE_LENGTH;

import io.pinshard.format.JpegFrame;
import io.pinshard.memory.BatchMemoryAllocator;
import io.pinshard.memory.NativeRegion;
import java.nio.ByteOrder;
import org.agrona.BitUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One batch of JPEG payloads for {@link NvJpegDecoder}, laid out as {@link NvJpegBatchDescriptor} says in a host
 * block allocated once: {@link #reset} aims it at a device buffer, {@link #add} appends a payload (an address and
 * length in a mapped shard) after checking it, and the decoder passes the block's arrays to nvJPEG as they are.
 *
 * <p>Each payload is checked before nvJPEG sees it, as the reader checks a record before its CPU decoder: the bytes
 * must form a sound JPEG stream (start and end markers, marker segments inside the payload, well-formed tables and
 * scan headers, scan data bytes in order: {@link JpegFrame#inspect}), with 1 or 3 components, no side over the
 * batch's bounds (its output slot is sized by them) and, where the caller knows them from the shard's index, the index's height and width. A payload
 * that fails is refused with an {@link IllegalArgumentException} naming the record; nothing is written for it.
 * No heap allocation per payload or per batch. Not thread-safe: one filling thread at a time.
 */
public final class NvJpegBatch implements AutoCloseable {
    private final int capacity;
    private final int maxHeight;
    private final int maxWidth;
    private final long outputStride;
    private final NativeRegion region;
    private final UnsafeBuffer block;
    private final UnsafeBuffer payload = new UnsafeBuffer(0, 0);
    private final int[] heights;
    private final int[] widths;
    private final long[] records;
    private long outputAddress;
    private long outputLength;
    private int count;
    private boolean closed;

    /** A batch of at most {@code capacity} images of at most {@code maxHeight x maxWidth}, its block from {@code allocator}. */
    public NvJpegBatch(BatchMemoryAllocator allocator, int capacity, int maxHeight, int maxWidth) {
        this.outputStride = NvJpegBatchDescriptor.outputStride(maxHeight, maxWidth);
        long length = NvJpegBatchDescriptor.blockLength(capacity);
        this.capacity = capacity;
        this.maxHeight = maxHeight;
        this.maxWidth = maxWidth;
        this.region = allocator.allocate(length, BitUtil.SIZE_OF_LONG);
        this.block = new UnsafeBuffer(region.address(), Math.toIntExact(length));
        this.block.setMemory(0, block.capacity(), (byte) 0);
        this.heights = new int[capacity];
        this.widths = new int[capacity];
        this.records = new long[capacity];
    }

    /** Empties the batch and aims its images at {@code deviceLength} bytes of device memory from {@code deviceAddress}. */
    public NvJpegBatch reset(long deviceAddress, long deviceLength) {
        ensureOpen();
        if (deviceAddress == 0 || deviceLength < outputStride) {
            throw new IllegalArgumentException("the output buffer (" + deviceLength + " bytes at 0x"
                + Long.toHexString(deviceAddress) + ") holds no image slot of " + outputStride + " bytes");
        }
        outputAddress = deviceAddress;
        outputLength = deviceLength;
        count = 0;
        return this;
    }

    /**
     * Appends the payload of {@code record}, {@code length} bytes at {@code address}, and returns its index in the
     * batch. {@code expectedHeight}/{@code expectedWidth} are the index's size of the record, or 0 when unknown.
     */
    public int add(long address, int length, long record, int expectedHeight, int expectedWidth) {
        ensureOpen();
        if (outputAddress == 0) {
            throw new IllegalStateException("reset(deviceAddress, deviceLength) before add");
        }
        if (count == capacity) {
            throw new IllegalStateException("the batch is full: " + capacity + " images");
        }
        if ((count + 1) * outputStride > outputLength) {
            throw new IllegalStateException("the output buffer of " + outputLength + " bytes holds " + count
                + " image slots of " + outputStride + " bytes; image " + count + " does not fit");
        }
        if (address == 0 || length < 4) {
            throw new IllegalArgumentException("record " + record + ": a JPEG payload of " + length + " bytes at 0x"
                + Long.toHexString(address) + " cannot hold a JPEG stream");
        }
        payload.wrap(address, length);
        // The whole stream's structure and tables, not just its frame header: nvJPEG crashed (SIGSEGV, on an H200)
        // on a stream whose scan held only 0xFF fill bytes before its end marker.
        long frame = JpegFrame.inspect(payload, 0, length);
        if (frame < 0) {
            throw new IllegalArgumentException("record " + record + ": " + JpegFrame.problem(frame) + " (" + length
                + " bytes)");
        }
        int height = JpegFrame.height(frame);
        int width = JpegFrame.width(frame);
        int components = JpegFrame.components(frame);
        if (components != 1 && components != OUTPUT_CHANNELS) {
            throw new IllegalArgumentException("record " + record + ": a JPEG of " + components
                + " components; nvJPEG's RGB output takes gray or 3-component images");
        }
        if (height > maxHeight || width > maxWidth) {
            throw new IllegalArgumentException("record " + record + ": a " + height + " x " + width + " JPEG exceeds"
                + " the batch's " + maxHeight + " x " + maxWidth + " output slots");
        }
        if ((expectedHeight != 0 && expectedHeight != height) || (expectedWidth != 0 && expectedWidth != width)) {
            throw new IllegalArgumentException("record " + record + ": the JPEG stream is " + height + " x " + width
                + ", the index says " + expectedHeight + " x " + expectedWidth);
        }
        int i = count;
        block.putLong(sourceOffset(i), address, ByteOrder.LITTLE_ENDIAN);
        block.putLong(lengthOffset(i), length, ByteOrder.LITTLE_ENDIAN);
        long image = imageOffset(i);
        for (int c = 0; c < MAX_COMPONENTS; c++) {
            long channel = c == 0 ? outputAddress + i * outputStride : 0;
            long pitch = c == 0 ? (long) width * OUTPUT_CHANNELS : 0;
            block.putLong((int) image + IMAGE_CHANNEL_OFFSET + c * BitUtil.SIZE_OF_LONG, channel, ByteOrder.LITTLE_ENDIAN);
            block.putLong((int) image + IMAGE_PITCH_OFFSET + c * BitUtil.SIZE_OF_LONG, pitch, ByteOrder.LITTLE_ENDIAN);
        }
        heights[i] = height;
        widths[i] = width;
        records[i] = record;
        count = i + 1;
        return i;
    }

    private int sourceOffset(int i) {
        return (int) (NvJpegBatchDescriptor.sourcesOffset(capacity) + (long) i * SOURCE_LENGTH);
    }

    private int lengthOffset(int i) {
        return (int) (NvJpegBatchDescriptor.lengthsOffset(capacity) + (long) i * LENGTH_LENGTH);
    }

    private long imageOffset(int i) {
        return NvJpegBatchDescriptor.imagesOffset(capacity) + (long) i * IMAGE_LENGTH;
    }

    public int count() {
        return count;
    }

    public int capacity() {
        return capacity;
    }

    public int maxHeight() {
        return maxHeight;
    }

    public int maxWidth() {
        return maxWidth;
    }

    /** Device bytes per image slot. */
    public long outputStride() {
        return outputStride;
    }

    public int height(int i) {
        return heights[checkIndex(i)];
    }

    public int width(int i) {
        return widths[checkIndex(i)];
    }

    public long record(int i) {
        return records[checkIndex(i)];
    }

    /** Device address of image i's first pixel; rows are {@code width(i) * 3} bytes apart. */
    public long outputAddress(int i) {
        return outputAddress + checkIndex(i) * outputStride;
    }

    /** Host address of the {@code source[]} array (nvJPEG's {@code data}). */
    public long sourcesAddress() {
        ensureOpen();
        return region.address() + NvJpegBatchDescriptor.sourcesOffset(capacity);
    }

    /** Host address of the {@code length[]} array (nvJPEG's {@code lengths}). */
    public long lengthsAddress() {
        ensureOpen();
        return region.address() + NvJpegBatchDescriptor.lengthsOffset(capacity);
    }

    /** Host address of the {@code nvjpegImage_t[]} array (nvJPEG's {@code destinations}). */
    public long imagesAddress() {
        ensureOpen();
        return region.address() + NvJpegBatchDescriptor.imagesOffset(capacity);
    }

    private int checkIndex(int i) {
        ensureOpen();
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("image " + i + " of a batch of " + count);
        }
        return i;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("this nvJPEG batch is closed");
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            region.close();
        }
    }
}
