package io.pinshard.torch;

import io.pinshard.reader.AddressPointer;
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
 * <p>Release check: when the batch is released, libtorch's reference counts of the owning tensor, of the handed
 * tensor and of their storage must be what the adapter's own tensors account for. More means the trainer still
 * holds a view or copy of the handle (permute, narrow, contiguous, an autograd graph...). That storage is then
 * poisoned (libtorch's own "data pointer access" error, with a message naming the batch), so any later use of the
 * view throws instead of reading the workers' next pixels, and the slot gets fresh tensors next time: the only
 * case in which the adapter makes tensors after each slot's first full and partial batch.
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
        storage = full.storage();
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
     * Ends the current batch: revokes the handle and checks that nothing else holds this slot's tensors.
     *
     * @return whether the storage had to be poisoned (the trainer kept a view past the release)
     */
    boolean release(Object batch) {
        long rows = handedRows;
        if (peer != null) {
            peer.revoke();
            peer = null;
            handedRows = -1;
        }
        if (full == null) {
            return false;
        }
        boolean kept = full.use_count() > fullBaseline || storage.use_count() > storageBaseline
            || (rows == capacity && (fullShaped != null ? fullShaped : full).use_count() > fullHandedBaseline)
            || (rows >= 0 && rows != capacity && (partShaped != null ? partShaped : part).use_count() > partHandedBaseline);
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
            full.close();
            full = null;
            storage = null;
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
