package io.pinshard.torch;

import io.pinshard.loader.ring.Batch;
import org.agrona.concurrent.UnsafeBuffer;
import org.bytedeco.pytorch.Tensor;

/**
 * One loader batch as libtorch tensors, over the ring slot's memory: {@link #images()} is the slot itself (no pixel
 * copied), {@link #sampleIds()} too; {@link #labels()} and {@link #normalized()} are per-slot tensors the adapter
 * fills in place. Get it from {@link TorchEpoch}; close it when the step no longer needs its tensors.
 *
 * <h2>Lifetime</h2>
 * <ul>
 *   <li>{@link #close()} gives the slot back to the loader's workers ({@link Batch#close()}); use try-with-resources
 *       around the training step. Idempotent.</li>
 *   <li>The tensors returned are handles for this batch only: after {@code close()} every call on them, or passing
 *       them to libtorch, throws {@link NullPointerException} ("This pointer address is NULL"). Do not close them
 *       yourself (closing is harmless: they own nothing).</li>
 *   <li>A view or copy of a handle still alive at {@code close()} (a {@code permute}, {@code narrow},
 *       {@code contiguous()}, an autograd graph not yet run backward) is detected from libtorch's reference counts
 *       and keeps its memory and this batch's values: the adapter leaves the storage to it. For {@link #images()}
 *       and {@link #sampleIds()}, whose storage is the ring slot, the slot then goes back to the loader only when
 *       libtorch frees that storage (its deleter), also after {@link TorchLoader#close()} and
 *       {@code Loader.close()}. Until then the slot's next batch cannot be handed out ({@link TorchEpoch#next()}
 *       throws after asking the garbage collector for views left to it). Free such temporaries before closing
 *       (JavaCPP's {@code PointerScope}, or {@code close()} on them); each kept view costs the slot fresh tensors
 *       ({@link TorchLoader#keptPastClose()}).</li>
 *   <li>The object is reused for the slot's next batch: do not keep it past {@code close()} (until then its
 *       accessors throw {@link IllegalStateException}; afterwards they answer for the new batch).</li>
 *   <li>Use it on one thread at a time; close it on the thread that ran the step, or after that step finished.</li>
 * </ul>
 * Steady state (every slot seen once, no view kept past a close): no native allocation, and only the per-batch Java handles on
 * the heap (well under 1 KiB per batch).
 */
public final class TorchBatch implements AutoCloseable {
    private final TorchLoader owner;
    private final SlotTensor images;
    private final SlotTensor labels;
    private final SlotTensor sampleIds;
    private final SlotTensor normalized;
    /** Per selected field: its values padded to {@code [N, elements]}, and its element counts {@code [N]}. */
    private final SlotTensor[] fields;
    private final SlotTensor[] fieldCounts;
    private final boolean[] fieldFilled;
    private final UnsafeBuffer labelsIn = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer fieldSource = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer fieldValues = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer fieldCountsOut = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer labelsOut = new UnsafeBuffer(0, 0);
    private Batch batch;
    /** The last batch of this slot closed while views of its slot storages lived; null or done once returned. */
    private SlotReturn pendingReturn;
    private boolean labelsFilled;
    private boolean normalizedFilled;

    TorchBatch(TorchLoader owner) {
        this.owner = owner;
        this.images = new SlotTensor("images", false);
        this.labels = new SlotTensor("labels", false);
        this.sampleIds = new SlotTensor("sampleIds", false);
        this.normalized = new SlotTensor("normalized", true);
        int count = owner.loader().options().augment().fields().count();
        this.fields = new SlotTensor[count];
        this.fieldCounts = new SlotTensor[count];
        this.fieldFilled = new boolean[count];
        for (int f = 0; f < count; f++) {
            fields[f] = new SlotTensor("field " + owner.loader().options().augment().fields().names().get(f), false);
            fieldCounts[f] = new SlotTensor("field counts", false);
        }
    }

    TorchBatch open(Batch next) {
        if (batch != null) { // the raw batch was closed directly: end the handles of that one first
            release(false);
        }
        batch = next;
        labelsFilled = false;
        normalizedFilled = false;
        java.util.Arrays.fill(fieldFilled, false);
        return this;
    }

    /**
     * {@code uint8 [N, H, W, 3]} (RGB, C-contiguous) over the slot's memory: its data pointer is
     * {@link Batch#address()}.
     */
    public Tensor images() {
        Batch b = held();
        images.ensureSlotBlob(b, b.address(), (long) b.capacity() * b.imageBytes(), owner.imageShape(), owner.uint8());
        return images.handle(b.size());
    }

    /** {@code int64 [N]} class labels ({@code -1} where a record has none), widened from the slot's int32 labels. */
    public Tensor labels() {
        Batch b = held();
        labels.ensureEmpty(owner.rowShape(), owner.int64());
        if (!labelsFilled) {
            int n = b.size();
            labelsIn.wrap(b.labelsAddress(), n * Integer.BYTES);
            labelsOut.wrap(labels.dataAddress(), n * Long.BYTES);
            for (int i = 0; i < n; i++) {
                labelsOut.putLong(i * Long.BYTES, labelsIn.getInt(i * Integer.BYTES));
            }
            labelsFilled = true;
        }
        return labels.handle(b.size());
    }

    /** {@code int64 [N]} dataset record numbers, over the slot's memory. */
    public Tensor sampleIds() {
        Batch b = held();
        sampleIds.ensureSlotBlob(b, b.sampleIdsAddress(), (long) b.capacity() * Long.BYTES, owner.rowShape(),
            owner.int64());
        return sampleIds.handle(b.size());
    }

    /**
     * {@code float32 [N, 3, H, W]} with channels-last strides ({@code [3HW, 1, 3W, 3]}): {@code (x / 255 - mean) / std}
     * per channel ({@link TorchOptions}), computed on first call per batch into a tensor the slot keeps (libtorch's
     * intra-op threads, see {@link Libtorch#setThreads}).
     */
    public Tensor normalized() {
        Batch b = held();
        normalized.ensureEmpty(owner.imageShape(), owner.float32());
        if (!normalizedFilled) {
            images.ensureSlotBlob(b, b.address(), (long) b.capacity() * b.imageBytes(), owner.imageShape(),
                owner.uint8());
            Tensor out = normalized.rows(b.size());
            out.copy_(images.rows(b.size()));
            owner.normalize(out);
            normalizedFilled = true;
        }
        return normalized.handle(b.size());
    }

    /**
     * A numeric record field the loader carries ({@code LoaderOptions.fields}) as {@code [N, K]}: int32, int64 or
     * float32 as the field's type, K the slot's room per sample over the element size ({@code fieldBytes / 4} or
     * {@code / 8}); sample i's values in its first {@link #fieldCounts} {@code [i]} columns, zeros after them. Boxes
     * ({@code LoaderOptions.boxes}) are already in output pixels: {@code view(N, K / 4, 4)}. Filled on first call
     * per batch into a tensor the slot keeps (a copy out of the slot, which stays the loader's).
     *
     * @throws IllegalArgumentException for a field not carried, or a text or bytes field (read those from
     *                                  {@link #batch()}: {@code fieldString}, {@code fieldAddress})
     */
    public Tensor field(String name) {
        Batch b = held();
        int f = fieldOf(b, name);
        fill(b, f);
        return fields[f].handle(b.size());
    }

    /** {@code int64 [N]}: how many elements of {@link #field}{@code (name)}'s row i are sample i's (boxes: 4 per box). */
    public Tensor fieldCounts(String name) {
        Batch b = held();
        int f = fieldOf(b, name);
        fill(b, f);
        return fieldCounts[f].handle(b.size());
    }

    private int fieldOf(Batch b, String name) {
        int f = b.fields().indexOf(name);
        if (f < 0) {
            throw new IllegalArgumentException("the loader carries no field " + name + ": it carries "
                + b.fields().names());
        }
        if (owner.fieldOptions(f) == null) {
            throw new IllegalArgumentException("field " + name + " holds text or bytes, not numbers: read it with "
                + "batch().fieldString or fieldAddress");
        }
        return f;
    }

    private void fill(Batch b, int f) {
        fields[f].ensureEmpty(owner.fieldShape(f), owner.fieldOptions(f));
        fieldCounts[f].ensureEmpty(owner.rowShape(), owner.int64());
        if (fieldFilled[f]) {
            return;
        }
        int n = b.size();
        int room = b.fieldCapacity();
        int elementBytes = owner.fieldOptions(f) == owner.int64() ? Long.BYTES : Integer.BYTES;
        long rowBytes = owner.fieldShape(f)[1] * elementBytes;
        fieldValues.wrap(fields[f].dataAddress(), (int) (n * rowBytes));
        fieldCountsOut.wrap(fieldCounts[f].dataAddress(), n * Long.BYTES);
        for (int i = 0; i < n; i++) {
            int length = Math.min(b.fieldLength(f, i), (int) Math.min(room, rowBytes));
            fieldValues.setMemory((int) (i * rowBytes), (int) rowBytes, (byte) 0);
            fieldSource.wrap(b.fieldAddress(f, i), Math.max(1, length));
            fieldValues.putBytes((int) (i * rowBytes), fieldSource, 0, length);
            fieldCountsOut.putLong(i * Long.BYTES, length / elementBytes);
        }
        fieldFilled[f] = true;
    }

    /** Images in this batch ({@code N}). */
    public int size() {
        return held().size();
    }

    /** The loader's batch (index, epoch, slot, addresses). Release it through {@link #close()}, not directly. */
    public Batch batch() {
        return held();
    }

    private Batch held() {
        Batch b = batch;
        if (b == null) {
            throw new IllegalStateException("this TorchBatch was released: its slot belongs to the loader's workers again");
        }
        return b;
    }

    /**
     * Revokes this batch's tensors and gives the slot back to the loader: now, or when libtorch frees the last view
     * of its images or sample ids kept past this call. Idempotent.
     */
    @Override
    public void close() {
        if (batch != null) {
            release(true);
        }
    }

    /**
     * Ends the handles; a tensor whose views outlive them is left to the views. {@code returnSlot}: give the slot
     * back (at once, or through the deleters of the slot storages the views keep); false when the raw batch was
     * closed directly already.
     */
    private void release(boolean returnSlot) {
        Batch b = batch;
        batch = null;
        boolean imagesKept = images.revoke();
        boolean idsKept = sampleIds.revoke();
        boolean labelsKept = labels.revoke();
        boolean normalizedKept = normalized.revoke();
        int fieldsKept = 0;
        for (int f = 0; f < fields.length; f++) {
            if (fields[f].revoke()) {
                fieldsKept++;
                fields[f].leaveToViews(null);
            }
            if (fieldCounts[f].revoke()) {
                fieldsKept++;
                fieldCounts[f].leaveToViews(null);
            }
        }
        int slotStorages = (imagesKept && images.holdsSlot() ? 1 : 0) + (idsKept && sampleIds.holdsSlot() ? 1 : 0);
        SlotReturn owed = returnSlot && slotStorages > 0 ? new SlotReturn(owner, b, slotStorages) : null;
        int left = (imagesKept ? 1 : 0) + (idsKept ? 1 : 0) + (labelsKept ? 1 : 0) + (normalizedKept ? 1 : 0)
            + fieldsKept;
        if (left > 0) {
            owner.countKept(left);
        }
        if (owed != null) {
            pendingReturn = owed;
            owner.slotHeldByViews();
        }
        // A slot storage takes the return before the adapter lets go of it: its deleter may run right there.
        if (imagesKept) {
            images.leaveToViews(owed);
        }
        if (idsKept) {
            sampleIds.leaveToViews(owed);
        }
        if (labelsKept) {
            labels.leaveToViews(null);
        }
        if (normalizedKept) {
            normalized.leaveToViews(null);
        }
        if (returnSlot && owed == null) {
            b.close();
        }
    }

    /** Whether views of an earlier batch of this slot still keep the slot from the loader. */
    boolean heldByViews() {
        SlotReturn r = pendingReturn;
        return r != null && !r.done();
    }

    /** The batch those views keep ({@link #heldByViews()}). */
    String heldBatch() {
        return String.valueOf(pendingReturn);
    }

    /** Tensors this slot made so far. */
    long tensorsMade() {
        long made = images.made() + labels.made() + sampleIds.made() + normalized.made();
        for (int f = 0; f < fields.length; f++) {
            made += fields[f].made() + fieldCounts[f].made();
        }
        return made;
    }

    /** Frees the slot's tensors (the loader is closing). */
    void free() {
        close();
        images.close();
        labels.close();
        sampleIds.close();
        normalized.close();
        for (int f = 0; f < fields.length; f++) {
            fields[f].close();
            fieldCounts[f].close();
        }
    }

    @Override
    public String toString() {
        Batch b = batch;
        return b == null ? "TorchBatch (released)" : "TorchBatch of " + b;
    }
}
