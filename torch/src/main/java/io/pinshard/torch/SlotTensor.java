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
 * (made once per size), optionally a permuted view, and the per-batch {@link TensorPeer} the trainer gets.
 *
 * <p>Release check: when the batch is released, libtorch's reference counts of the owning tensor, of the handed
 * tensor and of their storage must be what the adapter's own tensors account for. More means the trainer still
 * holds a view or copy of the handle (permute, narrow, contiguous, an autograd graph...). That storage is then
 * poisoned (libtorch's own "data pointer access" error, with a message naming the batch), so any later use of the
 * view throws instead of reading the workers' next pixels, and the slot gets fresh tensors next time: the only
 * case in which the adapter allocates after the first pass.
 */
final class SlotTensor implements AutoCloseable {
    /** Dimension order of the handed tensor over NHWC memory: NCHW with channels-last strides. */
    private static final long[] NHWC_TO_NCHW = {0, 3, 1, 2};

    private final String name;
    private final boolean channelsFirst;
    private final AddressPointer blob = new AddressPointer();
    private Tensor full;
    private Storage storage;
    private long fullAddress;
    private long dataAddress;
    private Tensor sized;
    private Tensor shaped;
    private int sizedFor = -1;
    private long fullBaseline;
    private long handedBaseline;
    private long storageBaseline;
    private TensorPeer peer;

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
        full = Owned.keep(strides == null ? torch.from_blob(blob.at(address, bytes), shape, options)
            : torch.from_blob(blob.at(address, bytes), shape, strides, options));
        fullAddress = address;
        dataAddress = address;
        adopt();
    }

    /** Allocates {@code shape} in libtorch's allocator (contents undefined) unless already done. */
    void ensureEmpty(long[] shape, TensorOptions options) {
        if (full != null) {
            return;
        }
        full = Owned.keep(torch.empty(shape, options, null));
        dataAddress = full.data_ptr().address();
        adopt();
    }

    private void adopt() {
        storage = full.storage();
        sizedFor = -1;
    }

    boolean made() {
        return full != null;
    }

    /** Address of element 0 of the owning tensor. */
    long dataAddress() {
        return dataAddress;
    }

    /** The owning rows {@code [0, rows)} in memory order (NHWC for images), for computing into. */
    Tensor rows(int rows) {
        shape(rows);
        return sized != null ? sized : full;
    }

    /** The trainer's handle for this batch of {@code rows} rows, made on first call per batch. */
    Tensor handle(int rows) {
        if (peer == null) {
            peer = new TensorPeer(shape(rows));
        }
        return peer;
    }

    /** Whether a handle was given out for the current batch. */
    boolean handed() {
        return peer != null;
    }

    private Tensor shape(int rows) {
        if (sizedFor != rows) {
            closeViews();
            sized = rows == full.size(0) ? null : Owned.keep(full.narrow(0, 0, rows));
            Tensor base = sized != null ? sized : full;
            shaped = channelsFirst ? Owned.keep(base.permute(NHWC_TO_NCHW)) : null;
            sizedFor = rows;
            fullBaseline = full.use_count();
            handedBaseline = handedTensor().use_count();
            storageBaseline = storage.use_count();
        }
        return handedTensor();
    }

    private Tensor handedTensor() {
        return shaped != null ? shaped : sized != null ? sized : full;
    }

    /**
     * Ends the current batch: revokes the handle and checks that nothing else holds this slot's tensors.
     *
     * @return whether the storage had to be poisoned (the trainer kept a view past the release)
     */
    boolean release(Object batch) {
        if (peer != null) {
            peer.revoke();
            peer = null;
        }
        if (full == null || sizedFor < 0) {
            return false;
        }
        boolean kept = full.use_count() > fullBaseline || handedTensor().use_count() > handedBaseline
            || storage.use_count() > storageBaseline;
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

    private void closeViews() {
        if (shaped != null) {
            shaped.close();
            shaped = null;
        }
        if (sized != null) {
            sized.close();
            sized = null;
        }
        sizedFor = -1;
    }

    /** Frees the adapter's tensors (a poisoned storage lives on only as long as the trainer's views of it). */
    private void drop() {
        closeViews();
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
