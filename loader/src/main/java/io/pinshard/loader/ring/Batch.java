package io.pinshard.loader.ring;

import io.pinshard.loader.options.FieldSelection;
import io.pinshard.loader.options.PixelFormat;
import io.pinshard.memory.NativeRegion;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One batch in a ring slot: an image tensor of {@code size()} RGB crops, C-contiguous, by default NHWC uint8
 * {@code size() x crop x crop x 3} (else as {@link #pixels()} says: {@link #shape}, {@link #strideBytes}), an int32 label per image and an int64 record id per image, all in off-heap memory from the
 * loader's {@link io.pinshard.memory.BatchMemoryAllocator}.
 *
 * <h2>Ownership contract</h2>
 * <ul>
 *   <li>A batch returned by {@link io.pinshard.loader.Epoch#next()} is held by the caller; its memory stays valid and is not
 *       written by any worker until {@link #close()} is called. Close it exactly once (try-with-resources);
 *       further calls are ignored, also after the loader was closed.</li>
 *   <li>It may be held across further {@code next()} calls and closed from any thread, e.g. by a
 *       copy engine once an asynchronous device copy has completed (the cuda-bridge holds each batch until
 *       its copy event fires). Batches may be released in any order.</li>
 *   <li>At most {@link io.pinshard.loader.options.RingOptions#prefetch()} batches can be held at once (the ring has that many slots);
 *       {@code next()} with every slot held throws {@link IllegalStateException} instead of deadlocking.
 *       Batch {@code k} and batch {@code k + prefetch} share a slot: while batch {@code k} is held,
 *       {@code next()} for batch {@code k + prefetch} waits for its release (by another thread, e.g. a copy
 *       engine), so a single-threaded consumer should release batches in order and hold fewer than
 *       {@code prefetch}.</li>
 *   <li>Starting the next epoch requires every batch of the previous one to be released.</li>
 *   <li><b>After release or after the loader closed</b>, the accessors that read the batch's memory
 *       ({@link #label}, {@link #sampleId}) or hand out its addresses ({@link #address}, {@link #imageAddress},
 *       {@link #labelsAddress}, {@link #sampleIdsAddress}, {@link #region}) throw {@link IllegalStateException}
 *       naming the batch and what happened (released, or the loader closed). A read racing the release on
 *       another thread returns this batch's value or is refused, never what the workers write next. The
 *       shape and identity accessors ({@link #size}, {@link #index}, {@link #slot}, ...) keep answering.</li>
 *   <li>{@link io.pinshard.loader.Loader#close()} frees the memory even of held batches. A {@link #label}/{@link #sampleId}
 *       read racing it on another thread completes on live memory or is refused: close waits for reads in
 *       progress. An address handed out earlier is a raw pointer nothing can guard: whoever reads through it
 *       (a native call, an asynchronous device copy) must finish before releasing the batch or closing the
 *       loader, or take a {@link #holdMemory()} first, which keeps the slot's memory allocated past the loader's
 *       close until the hold is closed.</li>
 *   <li>The same {@code Batch} object is reused for later batches of the same slot: a reference kept past
 *       {@code close()} is refused until the slot's next batch is handed out, and from then on reads
 *       <em>that</em> batch. Do not keep references past {@code close()}.</li>
 * </ul>
 * Accessors allocate nothing; a guarded read costs two atomic adds.
 */
public final class Batch implements AutoCloseable {
    private static final VarHandle HELD_LEASE;
    private static final VarHandle SKIPPED;

    static {
        try {
            HELD_LEASE = MethodHandles.lookup().findVarHandle(Batch.class, "heldLease", long.class);
            SKIPPED = MethodHandles.lookup().findVarHandle(Batch.class, "skipped", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final RingSlots ring;
    private final int slot;
    private final NativeRegion region;
    private final int capacity;
    private final int crop;
    private final PixelFormat pixels;
    private final long imageBytes;
    private final long imageOffset;
    private final long labelsOffset;
    private final long idsOffset;
    private final UnsafeBuffer labels;
    private final UnsafeBuffer ids;
    private final FieldSelection fields;
    /** Per selected field: its lengths (int32 per sample) and its values ({@code stride} bytes per sample). */
    private final UnsafeBuffer[] fieldLengths;
    private final long[] fieldValuesOffsets;
    private final UnsafeBuffer[] fieldValues;
    private int epoch;
    private long index;
    private long sequence;
    private int size;
    private long generation;
    /** Hand-outs of this slot object so far (written by the consumer thread only). */
    private long lease;
    /** {@link #lease} while held, 0 once released: published after the fields above, cleared by close. */
    private volatile long heldLease;
    /**
     * Corrupt records the workers replaced while filling this slot's current batch. Counted per batch so that the
     * loader's statistics count the batches handed out, not work filled ahead and then discarded.
     */
    @SuppressWarnings("unused") // through SKIPPED
    private int skipped;

    Batch(RingSlots ring, int slot, NativeRegion region, int capacity, int crop, PixelFormat pixels, long labelsOffset,
          long idsOffset, FieldSelection fields) {
        this.ring = ring;
        this.slot = slot;
        this.region = region;
        this.capacity = capacity;
        this.crop = crop;
        this.pixels = pixels;
        this.imageBytes = pixels.imageBytes(crop);
        this.imageOffset = 0;
        this.labelsOffset = labelsOffset;
        this.idsOffset = idsOffset;
        this.labels = new UnsafeBuffer(region.address() + labelsOffset, capacity * Integer.BYTES);
        this.ids = new UnsafeBuffer(region.address() + idsOffset, capacity * Long.BYTES);
        this.fields = fields;
        this.fieldLengths = new UnsafeBuffer[fields.count()];
        this.fieldValuesOffsets = new long[fields.count()];
        this.fieldValues = new UnsafeBuffer[fields.count()];
        for (int f = 0; f < fields.count(); f++) {
            fieldLengths[f] = new UnsafeBuffer(region.address()
                + BatchRingDescriptor.fieldLengthsOffset(capacity, imageBytes, fields.stride(), f), capacity * Integer.BYTES);
            fieldValuesOffsets[f] = BatchRingDescriptor.fieldValuesOffset(capacity, imageBytes, fields.stride(), f);
            fieldValues[f] = new UnsafeBuffer(region.address() + fieldValuesOffsets[f], capacity * fields.stride());
        }
    }

    /** Hands the batch to the consumer (consumer thread; the slot was released before). */
    public void open(int epochNumber, long batchIndex, long ringSequence, int samples, long runGeneration) {
        this.epoch = epochNumber;
        this.index = batchIndex;
        this.sequence = ringSequence;
        this.size = samples;
        this.generation = runGeneration;
        heldLease = ++lease;
    }

    /** Worker side, unchecked: the slot is not held while workers fill it. */
    public long slotImageAddress(int i) {
        return region.address() + imageOffset + (long) i * imageBytes();
    }

    /** Worker side: one more corrupt record replaced in this slot's batch. */
    public void addSkipped() {
        SKIPPED.getAndAdd(this, 1);
    }

    /**
     * Consumer side, once the batch is complete (every sample's write, and so every {@link #addSkipped()}, happened
     * before the fenced fill count the consumer saw), or at a ring reset: the count, cleared for the slot's next batch.
     */
    public int takeSkipped() {
        return (int) SKIPPED.getAndSet(this, 0);
    }

    public void putLabel(int i, int label) {
        labels.putInt(i * Integer.BYTES, label);
    }

    public void putSampleId(int i, long record) {
        ids.putLong(i * Long.BYTES, record);
    }

    /** Worker side, unchecked: where sample {@code i}'s value of field {@code f} goes ({@link #fieldCapacity()} bytes). */
    public long slotFieldAddress(int f, int i) {
        return region.address() + fieldValuesOffsets[f] + (long) i * fields.stride();
    }

    /** Worker side: the length of the value just written at {@link #slotFieldAddress}. */
    public void putFieldLength(int f, int i, int length) {
        fieldLengths[f].putInt(i * Integer.BYTES, length);
    }

    /** The selected fields, in the order this batch numbers them ({@link io.pinshard.loader.options.AugmentOptions#fields}). */
    public FieldSelection fields() {
        return fields;
    }

    /** The most bytes a sample's value of a field can have in this batch. */
    public int fieldCapacity() {
        return fields.bytesPerSample();
    }

    /** Bytes of sample {@code i}'s value of field {@code f} (boxes: 16 per kept box). */
    public int fieldLength(int f, int i) {
        long held = enter();
        try {
            int value = fieldLengths[checkField(f)].getInt(checkIndex(i) * Integer.BYTES);
            checkStillHeld(held);
            return value;
        } finally {
            ring.exit();
        }
    }

    /**
     * Address of sample {@code i}'s value of field {@code f}: UTF-8 bytes for text, little-endian numbers for the
     * numeric types, {@link #fieldLength} bytes of it valid while the batch is held.
     */
    public long fieldAddress(int f, int i) {
        checkAccessible();
        return region.address() + fieldValuesOffsets[checkField(f)] + (long) checkIndex(i) * fields.stride();
    }

    /** Address of field {@code f}'s {@code size()} int32 value lengths (one array per field, for tensor views). */
    public long fieldLengthsAddress(int f) {
        checkAccessible();
        return fieldLengths[checkField(f)].addressOffset();
    }

    /** Bytes between two samples' values of one field ({@link #fieldAddress} of i + 1 minus that of i). */
    public int fieldStrideBytes() {
        return fields.stride();
    }

    /** Sample {@code i}'s value of a text field as a {@code String}: allocates, not for a hot path. */
    public String fieldString(int f, int i) {
        long held = enter();
        try {
            int length = fieldLengths[checkField(f)].getInt(checkIndex(i) * Integer.BYTES);
            byte[] bytes = new byte[Math.max(0, Math.min(length, fields.bytesPerSample()))];
            fieldValues[f].getBytes(i * fields.stride(), bytes);
            checkStillHeld(held);
            return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        } finally {
            ring.exit();
        }
    }

    /** Element {@code k} of sample {@code i}'s value of a float32 field (boxes: box k / 4, coordinate k % 4). */
    public float fieldFloat(int f, int i, int k) {
        return Float.intBitsToFloat(fieldInt(f, i, k));
    }

    /** Element {@code k} of sample {@code i}'s value of an int32 field. */
    public int fieldInt(int f, int i, int k) {
        long held = enter();
        try {
            int length = fieldLengths[checkField(f)].getInt(checkIndex(i) * Integer.BYTES);
            if (k < 0 || (long) (k + 1) * Integer.BYTES > length) {
                throw new IndexOutOfBoundsException("element " + k + " of a " + length + "-byte value of field "
                    + fields.names().get(f));
            }
            int value = fieldValues[f].getInt(i * fields.stride() + k * Integer.BYTES, java.nio.ByteOrder.LITTLE_ENDIAN);
            checkStillHeld(held);
            return value;
        } finally {
            ring.exit();
        }
    }

    private int checkField(int f) {
        if (f < 0 || f >= fieldLengths.length) {
            throw new IndexOutOfBoundsException("field " + f + " of a batch carrying " + fields.names());
        }
        return f;
    }

    /** Address of image 0, pixel (0, 0), channel R. */
    public long address() {
        checkAccessible();
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

    /** What the images are: element type, layout, normalisation (uint8 NHWC unless the options asked otherwise). */
    public PixelFormat pixels() {
        return pixels;
    }

    /** Tensor shape {@code [size, crop, crop, 3]} (NHWC) or {@code [size, 3, crop, crop]} (NCHW): {@code dim} 0..3. */
    public long shape(int dim) {
        boolean planar = pixels.layout() == PixelFormat.Layout.NCHW;
        return switch (dim) {
            case 0 -> size;
            case 1 -> planar ? 3 : crop;
            case 2 -> crop;
            case 3 -> planar ? crop : 3;
            default -> throw new IndexOutOfBoundsException("a batch has dimensions 0..3: " + dim);
        };
    }

    /** Byte strides of the image tensor in its layout: {@code dim} 0..3. */
    public long strideBytes(int dim) {
        long element = pixels.elementBytes();
        boolean planar = pixels.layout() == PixelFormat.Layout.NCHW;
        return switch (dim) {
            case 0 -> imageBytes;
            case 1 -> (planar ? (long) crop * crop : crop * 3L) * element;
            case 2 -> (planar ? crop : 3L) * element;
            case 3 -> element;
            default -> throw new IndexOutOfBoundsException("a batch has dimensions 0..3: " + dim);
        };
    }

    /** Bytes of one image, {@code crop x crop x 3} values of {@link #pixels()}'s element type. */
    public long imageBytes() {
        return imageBytes;
    }

    /** Bytes of the image tensor, {@code size() x imageBytes()}. */
    public long tensorBytes() {
        return size * imageBytes();
    }

    /** Address of {@code size()} little-endian int32 labels (-1 where a record has none). */
    public long labelsAddress() {
        checkAccessible();
        return region.address() + labelsOffset;
    }

    /** Address of {@code size()} int64 dataset record numbers, in batch order. */
    public long sampleIdsAddress() {
        checkAccessible();
        return region.address() + idsOffset;
    }

    /** Label of image {@code i}, -1 when its record has none. */
    public int label(int i) {
        long held = enter();
        try {
            int value = labels.getInt(checkIndex(i) * Integer.BYTES);
            checkStillHeld(held);
            return value;
        } finally {
            ring.exit();
        }
    }

    /** Dataset record number of image {@code i}. */
    public long sampleId(int i) {
        long held = enter();
        try {
            long value = ids.getLong(checkIndex(i) * Long.BYTES);
            checkStillHeld(held);
            return value;
        } finally {
            ring.exit();
        }
    }

    /** Enters the ring's guard (so the loader's close waits for this read) and checks the batch is held. */
    private long enter() {
        if (!ring.enter()) {
            throw loaderClosed();
        }
        long held = heldLease;
        if (held == 0) {
            ring.exit();
            throw released();
        }
        return held;
    }

    /** A release racing the read may have let a worker overwrite the value: refuse it rather than return it. */
    private void checkStillHeld(long held) {
        VarHandle.loadLoadFence(); // the value read above is not reordered past this check (seqlock-style)
        if (heldLease != held) {
            throw released();
        }
    }

    private void checkAccessible() {
        if (ring.isClosed()) {
            throw loaderClosed();
        }
        if (heldLease == 0) {
            throw released();
        }
    }

    private IllegalStateException released() {
        return new IllegalStateException(this + " was released: its memory belongs to the loader's workers again");
    }

    private IllegalStateException loaderClosed() {
        return new IllegalStateException(this + " belongs to " + ring.owner() + ", which is closed");
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
        checkAccessible();
        return region;
    }

    /**
     * Keeps this slot's memory allocated until the returned hold is closed, even past {@link io.pinshard.loader.Loader#close()} (which
     * then leaves this slot to the hold's close): for memory handed to code with a lifetime of its own, such as a
     * libtorch storage whose deleter closes the hold, as DLPack's deleter does. It holds the memory, not the batch:
     * the slot still goes back to the workers at {@link #close()}. Allocates the hold (not meant per batch).
     *
     * @throws IllegalStateException when the batch was released or the loader closed
     */
    public SlotMemoryHold holdMemory() {
        if (!ring.enter()) { // inside the guard the ring's own hold is there: the memory is live
            throw loaderClosed();
        }
        try {
            if (heldLease == 0) {
                throw released();
            }
            ring.retainMemory(slot);
            return new SlotMemoryHold(ring, slot);
        } finally {
            ring.exit();
        }
    }

    /**
     * This hand-out of the slot object: distinct for each batch it carries, 0 once released. With
     * {@link #closeHandout} a holder that may outlive the batch (a deleter run later, on another thread) closes
     * exactly this batch, never a later one of the same slot.
     */
    public long handout() {
        return heldLease;
    }

    /** Releases the slot to the workers. Idempotent; callable from any thread, also after the loader closed. */
    @Override
    public void close() {
        closeHandout(heldLease);
    }

    /** {@link #close()} if this object still carries hand-out {@code handout} ({@link #handout()}); else nothing. */
    public void closeHandout(long handout) {
        long held = heldLease; // read first: the fields below were written before it was published
        long ringSequence = sequence;
        long runGeneration = generation;
        if (held != 0 && held == handout && HELD_LEASE.compareAndSet(this, held, 0L)) {
            ring.release(slot, ringSequence, runGeneration);
        }
    }

    @Override
    public String toString() {
        return "batch " + index + " of epoch " + epoch + " (" + size + " x " + crop + " x " + crop + " x 3, slot "
            + slot + ")";
    }
}
