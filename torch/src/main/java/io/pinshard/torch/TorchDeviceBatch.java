package io.pinshard.torch;

import io.pinshard.cuda.pipeline.DeviceBatch;
import io.pinshard.cuda.pipeline.TensorDescriptor;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;

/**
 * One {@link DeviceBatch} as libtorch tensors over its device memory, from {@link DeviceTensors#wrap}. Same lifetime
 * rules as {@link TorchBatch}: handles for this batch only (null after {@link #close()}), views kept past the close
 * poisoned, the object reused for the slot's next batch.
 */
public final class TorchDeviceBatch implements AutoCloseable {
    private final DeviceTensors owner;
    private final long imagesAddress;
    private final SlotTensor images = new SlotTensor("device images", false);
    private final SlotTensor labelsIn = new SlotTensor("device int32 labels", false);
    private final SlotTensor labels = new SlotTensor("device labels", false);
    private TensorOptions imageOptions;
    private TensorOptions int32Options;
    private TensorOptions int64Options;
    private DeviceBatch batch;
    private boolean labelsFilled;

    TorchDeviceBatch(DeviceTensors owner, long imagesAddress) {
        this.owner = owner;
        this.imagesAddress = imagesAddress;
    }

    long imagesAddress() {
        return imagesAddress;
    }

    TorchDeviceBatch open(DeviceBatch next) {
        if (batch != null) {
            throw new IllegalStateException("the previous batch of this slot is still wrapped: close the TorchDeviceBatch"
                + " (not the DeviceBatch) when the step is done");
        }
        TensorDescriptor d = next.images();
        if (imageOptions == null) {
            imageOptions = DeviceTensors.options(DeviceTensors.scalarType(d.dtype()), d);
            int32Options = DeviceTensors.options(torch.ScalarType.Int, d);
            int64Options = DeviceTensors.options(torch.ScalarType.Long, d);
        }
        batch = next;
        labelsFilled = false;
        return this;
    }

    /** The image tensor: the descriptor's dtype, shape and strides, on its device, over the batch's memory. */
    public Tensor images() {
        DeviceBatch b = held();
        TensorDescriptor d = b.images();
        int max = owner.maxBatch();
        images.ensureBlob(d.data(), max * d.stride(0) * d.dtype().bytes(), DeviceTensors.shapeWithRows(d, max),
            d.stridesArray(), imageOptions);
        return images.handle(b.size());
    }

    /** {@code int64 [N]} labels, widened on the batch's device (after its ready event) from the pipeline's int32. */
    public Tensor labels() {
        DeviceBatch b = held();
        TensorDescriptor d = b.labels();
        int max = owner.maxBatch();
        long[] rows = {max};
        labelsIn.ensureBlob(d.data(), max * (long) Integer.BYTES, rows, null, int32Options);
        labels.ensureEmpty(rows, int64Options);
        if (!labelsFilled) {
            labels.rows(b.size()).copy_(labelsIn.rows(b.size()));
            labelsFilled = true;
        }
        return labels.handle(b.size());
    }

    public int size() {
        return held().size();
    }

    /** The pipeline's batch (descriptors, event). Release it through {@link #close()}, not directly. */
    public DeviceBatch deviceBatch() {
        return held();
    }

    private DeviceBatch held() {
        DeviceBatch b = batch;
        if (b == null) {
            throw new IllegalStateException("this TorchDeviceBatch was released: its slot belongs to the pipeline again");
        }
        return b;
    }

    /**
     * Revokes this batch's tensors and gives the slot back once the work enqueued so far on libtorch's current stream
     * has run ({@link DeviceBatch#releaseAfter}); for a host batch, at once. Idempotent.
     */
    @Override
    public void close() {
        DeviceBatch b = batch;
        if (b == null) {
            return;
        }
        batch = null;
        int poisoned = (images.release(b) ? 1 : 0) + (labelsIn.release(b) ? 1 : 0) + (labels.release(b) ? 1 : 0);
        if (poisoned > 0) {
            owner.countPoisoned(poisoned);
        }
        long stream = owner.releaseStream(b.images());
        if (stream != 0) {
            b.releaseAfter(stream);
        } else {
            b.close();
        }
    }

    void free() {
        close();
        images.close();
        labelsIn.close();
        labels.close();
        for (TensorOptions o : new TensorOptions[] {imageOptions, int32Options, int64Options}) {
            if (o != null) {
                o.close();
            }
        }
    }
}
