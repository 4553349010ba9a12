package io.pinshard.cuda.device;

import io.pinshard.cuda.augment.AugmentSpec;
import io.pinshard.cuda.augment.ReferenceAugmenter;
import io.pinshard.memory.BatchMemoryAllocator;
import io.pinshard.memory.HostMemoryAllocator;
import io.pinshard.memory.NativeRegion;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The backend without a GPU: "device" buffers are ordinary off-heap memory, copies are plain memory copies done at
 * once, events are reached as soon as they are recorded, and augmentation runs {@link ReferenceAugmenter}. Every
 * line of {@link io.pinshard.cuda.pipeline.DeviceBatchPipeline} above the backend runs the same way as on cuda.
 * Single-threaded, like a stream.
 */
public final class HostBackend implements DeviceBackend {
    private final UnsafeBuffer copySource = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer copyTarget = new UnsafeBuffer(0, 0);
    private final ReferenceAugmenter augmenter = new ReferenceAugmenter();
    private boolean closed;

    @Override
    public String name() {
        return "host";
    }

    @Override
    public DeviceType deviceType() {
        return DeviceType.CPU;
    }

    @Override
    public int deviceId() {
        return 0;
    }

    @Override
    public BatchMemoryAllocator hostAllocator() {
        return HostMemoryAllocator.INSTANCE;
    }

    @Override
    public DeviceBuffer allocateDevice(long bytes) {
        ensureOpen();
        NativeRegion region = HostMemoryAllocator.INSTANCE.allocate(bytes, 256);
        return new DeviceBuffer() {
            @Override
            public long address() {
                return region.address();
            }

            @Override
            public long length() {
                return region.length();
            }

            @Override
            public void close() {
                region.close();
            }
        };
    }

    @Override
    public DeviceEvent createEvent() {
        ensureOpen();
        return ReachedEvent.INSTANCE;
    }

    @Override
    public void copyToDevice(long deviceTarget, long hostSource, long bytes) {
        ensureOpen();
        if (bytes < 0 || bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("host copies move 0 to 2^31-1 bytes: " + bytes);
        }
        copySource.wrap(hostSource, (int) bytes);
        copyTarget.wrap(deviceTarget, (int) bytes);
        copyTarget.putBytes(0, copySource, 0, (int) bytes);
    }

    @Override
    public void recordOnCopyStream(DeviceEvent event) {
        ensureOpen();
    }

    @Override
    public void copyStreamWaitFor(DeviceEvent event) {
        ensureOpen();
    }

    @Override
    public void computeStreamWaitFor(DeviceEvent event) {
        ensureOpen();
    }

    @Override
    public void augment(long deviceSource, long deviceParams, long deviceTarget, int batch, int height, int width,
                        AugmentSpec spec) {
        ensureOpen();
        augmenter.augment(deviceSource, deviceParams, deviceTarget, batch, height, width, spec);
    }

    @Override
    public void recordOnComputeStream(DeviceEvent event) {
        ensureOpen();
    }

    @Override
    public void recordOnStream(DeviceEvent event, long streamHandle) {
        ensureOpen();
    }

    @Override
    public long computeStreamHandle() {
        return 0;
    }

    @Override
    public void close() {
        closed = true;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("host backend is closed");
        }
    }

    /** Host work is done when it returns, so every event is reached at once. */
    private enum ReachedEvent implements DeviceEvent {
        INSTANCE;

        @Override
        public boolean isComplete() {
            return true;
        }

        @Override
        public void synchronize() {
        }

        @Override
        public long handle() {
            return 0;
        }

        @Override
        public void close() {
        }
    }
}
