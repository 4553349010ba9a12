package io.pinshard.torch;

import io.pinshard.memory.AddressPointer;
import io.pinshard.loader.ring.Batch;
import org.bytedeco.pytorch.Storage;
import org.bytedeco.pytorch.StringOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;

/**
 * One tensor of a ring slot (its images, its labels, ...), made once and handed out again for every batch of the
 * slot: the owning tensor over the whole slot ({@code capacity} rows), a narrowed one for a partial last batch
 * (made once per partial size, kept beside the full one), optionally permuted views of both, and the per-batch
 * {@link TensorPeer} the trainer gets.
 *
 * <p>Release check ({@link #revoke}): when the batch is released, libtorch's reference counts of the owning
 * tensor, of the handed tensor and of their storage must be what the adapter's own tensors account for. More means
 * the trainer still holds a view or copy of the handle (permute, narrow, contiguous, an autograd graph...). The
 * adapter then leaves the storage to those views ({@link #leaveToViews}): libtorch frees it with the last of them,
 * and the slot gets fresh tensors next time, the only case in which the adapter makes tensors after each slot's
 * first full and partial batch. A storage over a ring slot ({@link #ensureSlotBlob}) carries a libtorch deleter
 * ({@link SlotDeleter}) that holds the slot's memory, and then the batch, until it runs. Device memory
 * ({@link #ensureBlob}), which nothing can hold that way, is poisoned instead ({@link #release}).
 */
final class SlotTensor implements AutoCloseable {
    /** Dimension order of the handed tensor over NHWC memory: NCHW with channels-last strides. */
    private static final long[] NHWC_TO_NCHW = {0, 3, 1, 2};

    private final String name;
    private final boolean channelsFirst;
    private final AddressPointer blob = new AddressPointer();
    private Tensor full;
    private Tensor fullShaped;
    private Storage storage;
    private long capacity;
    private long fullAddress;
    private long dataAddress;
    private Tensor part;
    private Tensor partShaped;
    private long partRows = -1;
    private long fullBaseline;
    private long storageBaseline;
    private long fullHandedBaseline;
    private long partHandedBaseline;
    private long handedRows = -1;
    private TensorPeer peer;
    private SlotLease lease;
    private long made;

    /** @param channelsFirst hand out {@code permute(0, 3, 1, 2)} of the NHWC rows */
    SlotTensor(String name, boolean channelsFirst) {
        this.name = name;
        this.channelsFirst = channelsFirst;
    }

    /** Wraps {@code bytes} of someone else's memory at {@code address} as {@code shape} (no copy, no deleter). */
    void ensureBlob(long address, long bytes, long[] shape, TensorOptions options) {
        ensureBlob(address, bytes, shape, null, options);
    }

    /**
     * Wraps memory (host or device, as {@code options} say) with explicit element {@code strides} (null: dense).
     * Made again only when the address changes.
     */
    void ensureBlob(long address, long bytes, long[] shape, long[] strides, TensorOptions options) {
        if (full != null && fullAddress == address) {
            return;
        }
        drop();
        adopt(strides == null ? torch.from_blob(blob.at(address, bytes), shape, options)
            : torch.from_blob(blob.at(address, bytes), shape, strides, options));
        fullAddress = address;
        dataAddress = address;
    }

    /**
     * Wraps {@code bytes} of {@code batch}'s slot memory at {@code address} as {@code shape}, with the libtorch
     * deleter that holds the slot's memory (and, once views outlive the batch, the batch) until the storage dies.
     * Made again only when the address changes or the previous storage was left to views.
     */
    void ensureSlotBlob(Batch batch, long address, long bytes, long[] shape, TensorOptions options) {
        if (full != null && fullAddress == address) {
            return;
        }
        drop();
        SlotLease slotLease = SlotDeleter.INSTANCE.lease(address, batch.holdMemory());
        Tensor tensor;
        try {
            tensor = torch.from_blob(blob.at(address, bytes), shape, SlotDeleter.INSTANCE, options);
        } catch (RuntimeException | Error e) {
            SlotDeleter.INSTANCE.forget(address, slotLease);
            throw e;
        }
        lease = slotLease;
        adopt(tensor);
        fullAddress = address;
        dataAddress = address;
    }

    /** Allocates {@code shape} in libtorch's allocator (contents undefined) unless already done. */
    void ensureEmpty(long[] shape, TensorOptions options) {
        if (full != null) {
            return;
        }
        adopt(torch.empty(shape, options, null));
        dataAddress = full.data_ptr().address();
    }

    private void adopt(Tensor made) {
        full = keep(made);
        storage = Owned.keep(full.storage()); // holds a reference: closed in drop(), not left to the GC
        capacity = full.size(0);
        rebaseline();
    }

    private Tensor keep(Tensor tensor) {
        made++;
        return Owned.keep(tensor);
    }

    /** Tensors this slot made so far (constant once its full and partial batches have been seen). */
    long made() {
        return made;
    }

    /** Address of element 0 of the owning tensor. */
    long dataAddress() {
        return dataAddress;
    }

    /** The owning rows {@code [0, rows)} in memory order (NHWC for images), for computing into. */
    Tensor rows(long rows) {
        prepare(rows);
        return rows == capacity ? full : part;
    }

    /** The trainer's handle for this batch of {@code rows} rows, made on first call per batch. */
    Tensor handle(long rows) {
        if (peer == null) {
            peer = new TensorPeer(prepare(rows));
            handedRows = rows;
        }
        return peer;
    }

    /** Makes the views {@code rows} rows need, if not made yet; returns the tensor to hand out. */
    private Tensor prepare(long rows) {
        if (rows == capacity) {
            if (channelsFirst && fullShaped == null) {
                fullShaped = keep(full.permute(NHWC_TO_NCHW));
                rebaseline();
            }
            return fullShaped != null ? fullShaped : full;
        }
        if (partRows != rows) {
            closePart();
            part = keep(full.narrow(0, 0, rows));
            partShaped = channelsFirst ? keep(part.permute(NHWC_TO_NCHW)) : null;
            partRows = rows;
            rebaseline();
        }
        return partShaped != null ? partShaped : part;
    }

    private void rebaseline() {
        fullBaseline = full.use_count();
        storageBaseline = storage.use_count();
        fullHandedBaseline = fullShaped != null ? fullShaped.use_count() : fullBaseline;
        partHandedBaseline = partShaped != null ? partShaped.use_count() : part != null ? part.use_count() : 0;
    }

    /**
     * Ends the current batch's handle: revokes it and checks whether anything beyond the adapter's own tensors
     * still holds this slot's tensors (a view or copy the trainer kept past the release).
     */
    boolean revoke() {
        long rows = handedRows;
        if (peer != null) {
            peer.revoke();
            peer = null;
            handedRows = -1;
        }
        if (full == null) {
            return false;
        }
        return full.use_count() > fullBaseline || storage.use_count() > storageBaseline
            || (rows == capacity && (fullShaped != null ? fullShaped : full).use_count() > fullHandedBaseline)
            || (rows >= 0 && rows != capacity && (partShaped != null ? partShaped : part).use_count() > partHandedBaseline);
    }

    /**
     * After {@link #revoke} found views: the adapter lets go of its tensors, so the storage lives exactly as long as
     * the views and keeps this batch's values; a slot storage first takes {@code batch} (null: none), returned to
     * the loader by its deleter. The slot's next batch gets fresh tensors.
     */
    void leaveToViews(SlotReturn batch) {
        if (lease != null && batch != null) {
            lease.owe(batch); // before drop(): the views may already be gone, and the deleter run inside it
        }
        drop();
    }

    /** Whether this tensor is over slot memory with the deleter ({@link #ensureSlotBlob}). */
    boolean holdsSlot() {
        return lease != null;
    }

    /**
     * Ends the current batch for memory nothing can hold (device batches): {@link #revoke}, and when views remain,
     * poisons the storage so that they throw instead of reading what the pipeline writes next.
     *
     * @return whether the storage had to be poisoned (the trainer kept a view past the release)
     */
    boolean release(Object batch) {
        boolean kept = revoke();
        if (kept) {
            try (StringOptional message = new StringOptional("pinshard: the " + name + " tensor of " + batch
                    + " was used after the batch was closed: its memory belongs to the loader again (a view or copy "
                    + "of it was kept past the close)")) {
                storage.unsafeGetStorageImpl().release_data_and_set_meta_custom_data_ptr_error_msg_(message);
            }
            drop();
        }
        return kept;
    }

    private void closePart() {
        if (partShaped != null) {
            partShaped.close();
            partShaped = null;
        }
        if (part != null) {
            part.close();
            part = null;
        }
        partRows = -1;
    }

    /** Frees the adapter's tensors (a poisoned storage lives on only as long as the trainer's views of it). */
    private void drop() {
        closePart();
        if (fullShaped != null) {
            fullShaped.close();
            fullShaped = null;
        }
        if (full != null) {
            storage.close();
            storage = null;
            lease = null; // the storage's deleter ends it, now or with the trainer's last view
            full.close();
            full = null;
            fullAddress = 0;
            dataAddress = 0;
        }
    }

    @Override
    public void close() {
        if (peer != null) {
            peer.revoke();
            peer = null;
        }
        drop();
    }
}
