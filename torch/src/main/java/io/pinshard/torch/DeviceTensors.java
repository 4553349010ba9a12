package io.pinshard.torch;

import io.pinshard.memory.DType;
import io.pinshard.cuda.pipeline.DeviceBatch;
import io.pinshard.cuda.pipeline.DeviceBatchPipeline;
import io.pinshard.cuda.device.DeviceType;
import io.pinshard.cuda.pipeline.TensorDescriptor;
import org.bytedeco.pytorch.Device;
import org.bytedeco.pytorch.DeviceOptional;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;

/**
 * cuda-bridge's {@link DeviceBatch}es as libtorch tensors on the batch's own memory: the image tensor with the
 * descriptor's dtype, shape and strides on its device (CUDA, or the CPU for the host backend), and int64 labels.
 *
 * <pre>{@code
 * try (DeviceTensors tensors = DeviceTensors.of(pipeline)) {
 *     for (DeviceBatch next = stream.next(); next != null; next = stream.next()) {
 *         try (TorchDeviceBatch batch = tensors.wrap(next)) {   // torch's current stream waits for the batch
 *             Tensor loss = cross_entropy(model.forward(batch.images()), batch.labels());
 *             ...
 *         }                                                     // slot reused after the stream's work on it
 *     }
 * }
 * }</pre>
 *
 * For a CUDA batch, {@link #wrap} makes libtorch's current CUDA stream wait for the batch's ready event
 * ({@code cudaStreamWaitEvent}: no host blocking), and {@link TorchDeviceBatch#close()} hands the slot back with
 * {@link DeviceBatch#releaseAfter(long)} on that stream, so the pipeline overwrites it only after the trainer's kernels
 * ran. CUDA tensors need the CUDA build of libtorch ({@value Libtorch#GPU_ARTIFACT}, the torch module's
 * {@code -Ptorch-gpu} profile) and a GPU; without them wrapping a CUDA batch throws, saying which is missing.
 * Tensors per pipeline slot are made on the slot's first batch, as on the host side (same lifetime rules as
 * {@link TorchBatch}).
 */
public final class DeviceTensors implements AutoCloseable {
    private final int maxBatch;
    private final TorchDeviceBatch[] slots;
    private TorchCudaStreams cuda;
    private long poisoned;
    private boolean closed;

    private DeviceTensors(DeviceBatchPipeline pipeline) {
        this.maxBatch = pipeline.options().maxBatch();
        this.slots = new TorchDeviceBatch[pipeline.options().ringSize()];
    }

    /**
     * Tensors for the batches of {@code pipeline} (which it does not own).
     *
     * @throws IllegalStateException when libtorch cannot be loaded here
     */
    public static DeviceTensors of(DeviceBatchPipeline pipeline) {
        Libtorch.require();
        return new DeviceTensors(pipeline);
    }

    /**
     * The batch as tensors; for a CUDA batch, orders libtorch's current stream after its ready event first.
     *
     * @throws IllegalStateException when the batch is on CUDA and this libtorch or machine cannot make CUDA tensors
     */
    public TorchDeviceBatch wrap(DeviceBatch batch) {
        if (closed) {
            throw new IllegalStateException("these DeviceTensors are closed");
        }
        TensorDescriptor images = batch.images();
        TorchDeviceBatch slot = slotFor(images.data());
        if (images.deviceType() == DeviceType.CUDA) {
            Libtorch.requireCuda();
            if (cuda == null) {
                cuda = new TorchCudaStreams();
            }
            cuda.currentStreamWaitFor(images.deviceId(), batch.readyEvent());
        }
        return slot.open(batch);
    }

    private TorchDeviceBatch slotFor(long imagesAddress) {
        for (int s = 0; s < slots.length; s++) {
            if (slots[s] == null) {
                slots[s] = new TorchDeviceBatch(this, imagesAddress);
                return slots[s];
            }
            if (slots[s].imagesAddress() == imagesAddress) {
                return slots[s];
            }
        }
        throw new IllegalStateException("device batch at 0x" + Long.toHexString(imagesAddress) + " is not in any of the "
            + slots.length + " slots seen: wrap only the batches of the pipeline these DeviceTensors were made for");
    }

    int maxBatch() {
        return maxBatch;
    }

    /** libtorch's current stream for releasing a CUDA batch (0 for a host one). */
    long releaseStream(TensorDescriptor images) {
        return images.deviceType() == DeviceType.CUDA ? cuda.currentStream(images.deviceId()) : 0;
    }

    /** Options for a {@code type} tensor on {@code descriptor}'s device. The caller closes them. */
    static TensorOptions options(torch.ScalarType type, TensorDescriptor descriptor) {
        TensorOptions typed = new TensorOptions(type);
        if (descriptor.deviceType() == DeviceType.CPU) {
            return Owned.keep(typed);
        }
        try (typed; Device device = new Device(torch.DeviceType.CUDA, (byte) descriptor.deviceId());
             DeviceOptional where = new DeviceOptional(device)) {
            return Owned.keep(typed.device(where));
        }
    }

    static torch.ScalarType scalarType(DType dtype) {
        return switch (dtype) {
            case UINT8 -> torch.ScalarType.Byte;
            case INT32 -> torch.ScalarType.Int;
            case FLOAT32 -> torch.ScalarType.Float;
            case FLOAT16 -> torch.ScalarType.Half;
            case BFLOAT16 -> torch.ScalarType.BFloat16;
        };
    }

    /** {@code descriptor}'s shape with {@code rows} as dimension 0 (allocates: first batch of a slot only). */
    static long[] shapeWithRows(TensorDescriptor descriptor, long rows) {
        long[] shape = descriptor.shapeArray();
        shape[0] = rows;
        return shape;
    }

    void countPoisoned(int storages) {
        poisoned += storages;
    }

    /** Storages poisoned because a view of a batch's tensor outlived the batch (0 in a clean loop). */
    public long poisoned() {
        return poisoned;
    }

    /** Releases batches still held (revoking their tensors) and frees the tensors. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (TorchDeviceBatch slot : slots) {
            if (slot != null) {
                slot.free();
            }
        }
    }
}
