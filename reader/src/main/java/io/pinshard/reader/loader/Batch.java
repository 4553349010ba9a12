package io.pinshard.reader.loader;

import io.pinshard.memory.NativeRegion;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One batch in a ring slot: an NHWC uint8 image tensor {@code size() x crop x crop x 3} (C-contiguous,
 * RGB), an int32 label per image and an int64 record id per image, all in off-heap memory from the
 * loader's {@link io.pinshard.memory.BatchMemoryAllocator}.
 *
 * <h2>Ownership contract</h2>
 * <ul>
 *   <li>A batch returned by {@link Epoch#next()} is held by the caller; its memory stays valid and is not
 *       written by any worker until {@link #close()} is called. Close it exactly once (try-with-resources);
 *       further calls are ignored.</li>
 *   <li>It may be held across further {@code next()} calls and closed from any thread, e.g. by a
 *       copy engine once an asynchronous device copy has completed (the cuda-bridge holds each batch until
 *       its copy event fires). Batches may be released in any order.</li>
 *   <li>At most {@link LoaderOptions#prefetch()} batches can be held at once (the ring has that many slots);
 *       {@code next()} with every slot held throws {@link IllegalStateException} instead of deadlocking.
 *       Batch {@code k} and batch {@code k + prefetch} share a slot: while batch {@code k} is held,
 *       {@code next()} for batch {@code k + prefetch} waits for its release (by another thread, e.g. a copy
 *       engine), so a single-threaded consumer should release batches in order and hold fewer than
 *       {@code prefetch}.</li>
 *   <li>Starting the next epoch requires every batch of the previous one to be released. {@link Loader#close()}
 *       frees the memory even of held batches: finish asynchronous reads before closing.</li>
 *   <li>The same {@code Batch} object is reused for later batches of the same slot: do not keep references
 *       past {@code close()}.</li>
 * </ul>
 * Accessors allocate nothing.
 */
public final class Batch implements AutoCloseable {
    private final BatchRing ring;
    private final int slot;
    private final NativeRegion region;
    private final int capacity;
    private final int crop;
    private final long imageOffset;
    private final long labelsOffset;
    private final long idsOffset;
    private final UnsafeBuffer labels;
    private final UnsafeBuffer ids;
    private int epoch;
    private long index;
    private long sequence;
    private int size;
    private long generation;

    Batch(BatchRing ring, int slot, NativeRegion region, int capacity, int crop, long labelsOffset, long idsOffset) {
        this.ring = ring;
        this.slot = slot;
        this.region = region;
        this.capacity = capacity;
        this.crop = crop;
        this.imageOffset = 0;
        this.labelsOffset = labelsOffset;
        this.idsOffset = idsOffset;
        this.labels = new UnsafeBuffer(region.address() + labelsOffset, capacity * Integer.BYTES);
        this.ids = new UnsafeBuffer(region.address() + idsOffset, capacity * Long.BYTES);
    }

    void open(int epochNumber, long batchIndex, long ringSequence, int samples, long runGeneration) {
        this.epoch = epochNumber;
        this.index = batchIndex;
        this.sequence = ringSequence;
        this.size = samples;
        this.generation = runGeneration;
    }

    void putLabel(int i, int label) {
        labels.putInt(i * Integer.BYTES, label);
    }

    void putSampleId(int i, long record) {
        ids.putLong(i * Long.BYTES, record);
    }

    /** Address of image 0, pixel (0, 0), channel R. */
    public long address() {
        return region.address() + imageOffset;
    }

    /** Address of image {@code i}. */
    public long imageAddress(int i) {
        return address() + (long) i * imageBytes();
    }

    /** Images in this batch: the batch size, or fewer for a partial last batch. */
    public int size() {
        return size;
    }

    /** The batch size the slot was made for. */
    public int capacity() {
        return capacity;
    }

    public int crop() {
        return crop;
    }

    /** Tensor shape {@code [size, crop, crop, 3]}: {@code dim} 0..3. */
    public long shape(int dim) {
        return switch (dim) {
            case 0 -> size;
            case 1, 2 -> crop;
            case 3 -> 3;
            default -> throw new IndexOutOfBoundsException("NHWC has dimensions 0..3: " + dim);
        };
    }

    /** Byte strides of the NHWC tensor: {@code dim} 0..3. */
    public long strideBytes(int dim) {
        return switch (dim) {
            case 0 -> imageBytes();
            case 1 -> crop * 3L;
            case 2 -> 3;
            case 3 -> 1;
            default -> throw new IndexOutOfBoundsException("NHWC has dimensions 0..3: " + dim);
        };
    }

    /** Bytes of one image, {@code crop x crop x 3}. */
    public long imageBytes() {
        return (long) crop * crop * 3;
    }

    /** Bytes of the image tensor, {@code size() x imageBytes()}. */
    public long tensorBytes() {
        return size * imageBytes();
    }

    /** Address of {@code size()} little-endian int32 labels (-1 where a record has none). */
    public long labelsAddress() {
        return region.address() + labelsOffset;
    }

    /** Address of {@code size()} int64 dataset record numbers, in batch order. */
    public long sampleIdsAddress() {
        return region.address() + idsOffset;
    }

    public int label(int i) {
        return labels.getInt(checkIndex(i) * Integer.BYTES);
    }

    public long sampleId(int i) {
        return ids.getLong(checkIndex(i) * Long.BYTES);
    }

    private int checkIndex(int i) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException("image " + i + " of a batch of " + size);
        }
        return i;
    }

    /** The epoch this batch belongs to. */
    public int epoch() {
        return epoch;
    }

    /** This batch's number within its epoch (0-based), counting from the epoch's start even after a resume. */
    public long index() {
        return index;
    }

    /** Ring slot (0 .. prefetch-1): lets a consumer keep per-slot resources such as device buffers or events. */
    public int slot() {
        return slot;
    }

    /** The slot's whole memory region (images, labels, ids); {@link NativeRegion#pageLocked()} tells its kind. */
    public NativeRegion region() {
        return region;
    }

    /** Releases the slot to the workers. Idempotent; callable from any thread. */
    @Override
    public void close() {
        ring.release(slot, sequence, generation);
    }

    @Override
    public String toString() {
        return "batch " + index + " of epoch " + epoch + " (" + size + " x " + crop + " x " + crop + " x 3, slot "
            + slot + ")";
    }
}
