package io.pinshard.cuda.device;

import io.pinshard.cuda.augment.AugmentSpec;
import io.pinshard.memory.BatchMemoryAllocator;

/**
 * What {@link io.pinshard.cuda.pipeline.DeviceBatchPipeline} needs from a device: memory, a copy stream, a compute
 * stream, events and the augmentation. Two implementations: {@link HostBackend} (everywhere) and {@link CudaBackend}.
 * Work enqueued on one stream runs in order; the two streams are ordered against each other only through events.
 */
public interface DeviceBackend extends AutoCloseable {
    /** "host" or "cuda". */
    String name();

    DeviceType deviceType();

    int deviceId();

    /** Allocator for host batch slots that this backend copies from fastest (page-locked on cuda). */
    BatchMemoryAllocator hostAllocator();

    DeviceBuffer allocateDevice(long bytes);

    DeviceEvent createEvent();

    /** Enqueues a host-to-device copy on the copy stream. */
    void copyToDevice(long deviceTarget, long hostSource, long bytes);

    /** Records {@code event} on the copy stream. */
    void recordOnCopyStream(DeviceEvent event);

    /** Makes later copy-stream work wait for {@code event} (device side; the host does not block). */
    void copyStreamWaitFor(DeviceEvent event);

    /** Makes later compute-stream work wait for {@code event}. */
    void computeStreamWaitFor(DeviceEvent event);

    /**
     * Enqueues the augmentation of a device-resident batch on the compute stream (see
     * {@link io.pinshard.cuda.augment.ReferenceAugmenter}).
     */
    void augment(long deviceSource, long deviceParams, long deviceTarget, int batch, int height, int width,
                 AugmentSpec spec);

    /** Records {@code event} on the compute stream. */
    void recordOnComputeStream(DeviceEvent event);

    /** Records {@code event} on a stream the caller owns (a trainer's stream handle; 0 = default stream). */
    void recordOnStream(DeviceEvent event, long streamHandle);

    /** The compute stream's native handle ({@code cudaStream_t}); 0 on the host backend. */
    long computeStreamHandle();

    /** Waits for all enqueued work, then frees streams and the backend's own resources. */
    @Override
    void close();
}
