package io.pinshard.cuda.device;

import io.pinshard.cuda.augment.AugmentSpec;
import io.pinshard.cuda.augment.CudaAugmentKernel;
import io.pinshard.cuda.runtime.CudaAvailability;
import io.pinshard.cuda.runtime.CudaCheck;
import io.pinshard.cuda.runtime.PinnedMemoryAllocator;
import io.pinshard.memory.AddressPointer;
import io.pinshard.memory.BatchMemoryAllocator;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.Pointer;

/**
 * The GPU backend: device memory from {@code cudaMalloc}, host slots from {@link PinnedMemoryAllocator}, copies with
 * {@code cudaMemcpyAsync} on a dedicated non-blocking copy stream, augmentation on a second non-blocking compute
 * stream, ordering between them through CUDA events. The augmentation kernel is compiled on first use. Use from one
 * thread at a time; each call makes the device current on the calling thread when that thread changed.
 */
public final class CudaBackend implements DeviceBackend {
    private final int device;
    private final int computeMajor;
    private final int computeMinor;
    private final CUstream_st copyStream = new CUstream_st();
    private final CUstream_st computeStream = new CUstream_st();
    private final StreamRef callerStream = new StreamRef();
    private final AddressPointer copyTarget = new AddressPointer();
    private final AddressPointer copySource = new AddressPointer();
    private final PinnedMemoryAllocator pinned;
    private CudaAugmentKernel kernel;
    private Thread boundThread;
    private boolean closed;

    private CudaBackend(int device) {
        CudaAvailability.require();
        int count = CudaAvailability.status().deviceCount();
        if (device < 0 || device >= count) {
            throw new IllegalArgumentException("CUDA device " + device + " does not exist (" + count + " present)");
        }
        this.device = device;
        bind();
        int[] value = new int[1];
        CudaCheck.runtime(cudart.cudaDeviceGetAttribute(value, cudart.cudaDevAttrComputeCapabilityMajor, device),
            "cudaDeviceGetAttribute(computeCapabilityMajor)");
        computeMajor = value[0];
        CudaCheck.runtime(cudart.cudaDeviceGetAttribute(value, cudart.cudaDevAttrComputeCapabilityMinor, device),
            "cudaDeviceGetAttribute(computeCapabilityMinor)");
        computeMinor = value[0];
        // Creates the primary context now, so the driver-API module load later finds it current.
        CudaCheck.runtime(cudart.cudaFree(null), "cudaFree(NULL) (context creation)");
        CudaCheck.runtime(cudart.cudaStreamCreateWithFlags(copyStream, cudart.cudaStreamNonBlocking),
            "cudaStreamCreateWithFlags(copy)");
        CudaCheck.runtime(cudart.cudaStreamCreateWithFlags(computeStream, cudart.cudaStreamNonBlocking),
            "cudaStreamCreateWithFlags(compute)");
        pinned = new PinnedMemoryAllocator();
    }

    /** Opens device {@code device}; throws {@link IllegalStateException} with the reason when CUDA is unavailable. */
    public static CudaBackend open(int device) {
        return new CudaBackend(device);
    }

    @Override
    public String name() {
        return "cuda";
    }

    @Override
    public DeviceType deviceType() {
        return DeviceType.CUDA;
    }

    @Override
    public int deviceId() {
        return device;
    }

    /** Compute capability as {@code major * 10 + minor}, e.g. 90 for an H100/H200. */
    public int computeCapability() {
        return computeMajor * 10 + computeMinor;
    }

    @Override
    public BatchMemoryAllocator hostAllocator() {
        return pinned;
    }

    @Override
    public DeviceBuffer allocateDevice(long bytes) {
        ensureOpen();
        if (bytes <= 0) {
            throw new IllegalArgumentException("device buffers hold at least 1 byte: " + bytes);
        }
        Pointer memory = new Pointer();
        int status = cudart.cudaMalloc(memory, bytes);
        if (status == cudart.cudaErrorMemoryAllocation) {
            throw new OutOfMemoryError("cudaMalloc could not allocate " + bytes + " bytes on device " + device);
        }
        CudaCheck.runtime(status, "cudaMalloc(" + bytes + " bytes)");
        return new CudaBuffer(memory, bytes, device);
    }

    /** {@code cudaMalloc} memory; refuses use after close, frees once whichever thread closes first. */
    private static final class CudaBuffer implements DeviceBuffer {
        private final Pointer memory;
        private final long bytes;
        private final int device;
        private final AtomicBoolean freed = new AtomicBoolean();

        CudaBuffer(Pointer memory, long bytes, int device) {
            this.memory = memory;
            this.bytes = bytes;
            this.device = device;
        }

        @Override
        public long address() {
            ensureAccessible();
            return memory.address();
        }

        @Override
        public long length() {
            ensureAccessible();
            return bytes;
        }

        private void ensureAccessible() {
            if (freed.get()) {
                throw new IllegalStateException(this + " is closed");
            }
        }

        @Override
        public void close() {
            if (freed.compareAndSet(false, true)) {
                CudaCheck.runtime(cudart.cudaFree(memory), "cudaFree");
            }
        }

        @Override
        public String toString() {
            return "cuda device buffer of " + bytes + " bytes on device " + device;
        }
    }

    @Override
    public DeviceEvent createEvent() {
        ensureOpen();
        return new CudaEvent(false);
    }

    /** An event that can time work ({@code cudaEventElapsedTime}); for benchmarks. */
    DeviceEvent createTimingEvent() {
        ensureOpen();
        return new CudaEvent(true);
    }

    @Override
    public void copyToDevice(long deviceTarget, long hostSource, long bytes) {
        ensureOpen();
        if (bytes <= 0) {
            throw new IllegalArgumentException("copy of " + bytes + " bytes");
        }
        CudaCheck.runtime(cudart.cudaMemcpyAsync(copyTarget.at(deviceTarget, bytes), copySource.at(hostSource, bytes),
            bytes, cudart.cudaMemcpyHostToDevice, copyStream), "cudaMemcpyAsync(host to device)");
    }

    @Override
    public void recordOnCopyStream(DeviceEvent event) {
        ensureOpen();
        CudaCheck.runtime(cudart.cudaEventRecord(cuda(event).native_(), copyStream), "cudaEventRecord(copy stream)");
    }

    @Override
    public void copyStreamWaitFor(DeviceEvent event) {
        ensureOpen();
        CudaCheck.runtime(cudart.cudaStreamWaitEvent(copyStream, cuda(event).native_(), 0),
            "cudaStreamWaitEvent(copy stream)");
    }

    @Override
    public void computeStreamWaitFor(DeviceEvent event) {
        ensureOpen();
        CudaCheck.runtime(cudart.cudaStreamWaitEvent(computeStream, cuda(event).native_(), 0),
            "cudaStreamWaitEvent(compute stream)");
    }

    @Override
    public void augment(long deviceSource, long deviceParams, long deviceTarget, int batch, int height, int width,
                        AugmentSpec spec) {
        ensureOpen();
        long plane = (long) height * width;
        if (batch <= 0 || height <= 0 || width <= 0 || plane * 3 > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("cannot augment " + batch + "x" + height + "x" + width + " images");
        }
        if (kernel == null) {
            kernel = new CudaAugmentKernel(computeMajor, computeMinor);
        }
        kernel.launch(computeStream, deviceSource, deviceParams, deviceTarget, batch, height, width, spec);
    }

    @Override
    public void recordOnComputeStream(DeviceEvent event) {
        ensureOpen();
        CudaCheck.runtime(cudart.cudaEventRecord(cuda(event).native_(), computeStream),
            "cudaEventRecord(compute stream)");
    }

    @Override
    public void recordOnStream(DeviceEvent event, long streamHandle) {
        ensureOpen();
        CudaCheck.runtime(cudart.cudaEventRecord(cuda(event).native_(), callerStream.at(streamHandle)),
            "cudaEventRecord(trainer stream)");
    }

    @Override
    public long computeStreamHandle() {
        return computeStream.address();
    }

    /** Blocks until everything enqueued on both streams has finished. */
    public void synchronize() {
        ensureOpen();
        CudaCheck.runtime(cudart.cudaStreamSynchronize(copyStream), "cudaStreamSynchronize(copy)");
        CudaCheck.runtime(cudart.cudaStreamSynchronize(computeStream), "cudaStreamSynchronize(compute)");
    }

    /** Copies device memory back to the host, synchronously (tests and checks, not the hot path). */
    public void copyToHost(long hostTarget, long deviceSource, long bytes) {
        ensureOpen();
        synchronize();
        CudaCheck.runtime(cudart.cudaMemcpy(copyTarget.at(hostTarget, bytes), copySource.at(deviceSource, bytes), bytes,
            cudart.cudaMemcpyDeviceToHost), "cudaMemcpy(device to host)");
    }

    CUstream_st copyStream() {
        return copyStream;
    }

    /** The compute stream as JavaCPP's stream, for work queued beside the pipeline's (nvJPEG's decode, timing events). */
    public CUstream_st computeStream() {
        return computeStream;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        bind();
        try {
            synchronize();
        } finally {
            closed = true;
            if (kernel != null) {
                kernel.close();
            }
            CudaCheck.runtime(cudart.cudaStreamDestroy(copyStream), "cudaStreamDestroy(copy)");
            CudaCheck.runtime(cudart.cudaStreamDestroy(computeStream), "cudaStreamDestroy(compute)");
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("CUDA backend is closed");
        }
        if (boundThread != Thread.currentThread()) {
            bind();
        }
    }

    private void bind() {
        CudaCheck.runtime(cudart.cudaSetDevice(device), "cudaSetDevice(" + device + ")");
        boundThread = Thread.currentThread();
    }

    private static CudaEvent cuda(DeviceEvent event) {
        if (!(event instanceof CudaEvent)) {
            throw new IllegalArgumentException("not an event of the CUDA backend: " + event);
        }
        return (CudaEvent) event;
    }

    /** A stream handle owned by someone else (the trainer), re-aimed without allocating. */
    private static final class StreamRef extends CUstream_st {
        StreamRef at(long handle) {
            this.address = handle;
            return this;
        }
    }
}
