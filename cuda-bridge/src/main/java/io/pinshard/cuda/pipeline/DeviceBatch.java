package io.pinshard.cuda.pipeline;

import io.pinshard.cuda.device.DeviceEvent;

/**
 * A batch on the device, handed to the trainer by {@link DeviceBatchPipeline}: the image tensor (NCHW float32 /
 * fp16 / bf16 when augmenting, NHWC uint8 otherwise), the int32 labels, and the event that marks both ready on the
 * pipeline's compute stream. The trainer makes its own stream wait for {@link #readyEvent()} (cudaStreamWaitEvent)
 * instead of blocking the host, and closes the batch when its work no longer reads it: {@link #close()} when that
 * work has finished, or {@link #releaseAfter(long)} to let the pipeline wait on the trainer's stream itself.
 * Objects are reused per ring slot: do not keep one after releasing it.
 */
public final class DeviceBatch implements AutoCloseable {
    private final DeviceBatchPipeline owner;
    private final int slot;
    private final TensorDescriptor images = new TensorDescriptor();
    private final TensorDescriptor labels = new TensorDescriptor();
    private DeviceEvent ready;
    private long generation;
    private int size;

    DeviceBatch(DeviceBatchPipeline owner, int slot) {
        this.owner = owner;
        this.slot = slot;
    }

    public TensorDescriptor images() {
        return images;
    }

    public TensorDescriptor labels() {
        return labels;
    }

    /** Number of images. */
    public int size() {
        return size;
    }

    /** {@code cudaEvent_t} to wait on before reading (0 on the host backend, where the data is ready on return). */
    public long readyEvent() {
        return ready.handle();
    }

    /** {@code cudaStream_t} that produces the batch (0 on the host backend). */
    public long stream() {
        return owner.backend().computeStreamHandle();
    }

    /** Whether the copy and augmentation have finished (never blocks). */
    public boolean isReady() {
        owner.checkHeld(this);
        return ready.isComplete();
    }

    /** Blocks the calling thread until the batch is ready; the time is counted as data-wait. */
    public void awaitReady() {
        owner.awaitReady(this);
    }

    /** Gives the slot back, promising that no device work still reads it. */
    @Override
    public void close() {
        owner.release(this, false, 0);
    }

    /** Gives the slot back once the work enqueued so far on {@code trainerStream} has finished. */
    public void releaseAfter(long trainerStream) {
        owner.release(this, true, trainerStream);
    }

    int slot() {
        return slot;
    }

    long generation() {
        return generation;
    }

    DeviceEvent readyEventObject() {
        return ready;
    }

    void handOut(long newGeneration, int batchSize, DeviceEvent readyEvent) {
        generation = newGeneration;
        size = batchSize;
        ready = readyEvent;
    }
}
