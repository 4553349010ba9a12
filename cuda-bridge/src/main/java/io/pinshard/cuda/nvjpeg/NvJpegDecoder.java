package io.pinshard.cuda.nvjpeg;

import io.pinshard.cuda.runtime.CudaException;
import io.pinshard.memory.AddressPointer;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.global.nvjpeg;
import org.bytedeco.cuda.nvjpeg.nvjpegDevAllocator_t;
import org.bytedeco.cuda.nvjpeg.nvjpegHandle;
import org.bytedeco.cuda.nvjpeg.nvjpegImage_t;
import org.bytedeco.cuda.nvjpeg.nvjpegJpegState;
import org.bytedeco.cuda.nvjpeg.nvjpegPinnedAllocator_t;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.javacpp.SizeTPointer;

/**
 * Batched JPEG decoding on the GPU with nvJPEG ({@code nvjpegDecodeBatched}), straight from payloads in mapped
 * shards into interleaved RGB in device memory, as {@link NvJpegBatch} lays them out. One decoder per thread (an
 * nvJPEG state is not shareable), opened for one backend: {@link Backend#HARDWARE} uses the GPU's JPEG engines
 * (A100, H100, H200 and later; baseline JPEGs), {@link Backend#DEFAULT} lets nvJPEG choose its hybrid CPU/GPU path.
 * nvJPEG reads the payloads on the host during the call; the images are complete once {@code stream} is.
 * No heap allocation per batch once the decoder has seen the batch object (its pointer wrappers are made once).
 */
public final class NvJpegDecoder implements AutoCloseable {
    /** nvJPEG's {@code nvjpegBackend_t}, the ones batched decoding takes. */
    public enum Backend {
        DEFAULT(nvjpeg.NVJPEG_BACKEND_DEFAULT),
        GPU_HYBRID(nvjpeg.NVJPEG_BACKEND_GPU_HYBRID),
        HARDWARE(nvjpeg.NVJPEG_BACKEND_HARDWARE);

        final int code;

        Backend(int code) {
            this.code = code;
        }
    }

    private final Backend backend;
    private final int cpuThreads;
    private final nvjpegHandle handle;
    private final nvjpegJpegState state;
    private int initializedBatch;
    private NvJpegBatch boundBatch;
    private PointerPointer<?> sources;
    private SizeTPointer lengths;
    private nvjpegImage_t images;
    private boolean closed;

    private NvJpegDecoder(Backend backend, int cpuThreads, nvjpegHandle handle, nvjpegJpegState state) {
        this.backend = backend;
        this.cpuThreads = cpuThreads;
        this.handle = handle;
        this.state = state;
    }

    /**
     * A decoder on the current CUDA device; {@code cpuThreads} is the host threads nvJPEG may use for the hybrid
     * backends' Huffman stage. Throws {@link CudaException} naming the backend when the GPU lacks it (HARDWARE
     * on a GPU without JPEG engines: NVJPEG_STATUS_ARCH_MISMATCH or IMPLEMENTATION_NOT_SUPPORTED).
     */
    public static NvJpegDecoder open(Backend backend, int cpuThreads) {
        NvJpegAvailability.require();
        if (cpuThreads < 1) {
            throw new IllegalArgumentException("cpuThreads must be >= 1: " + cpuThreads);
        }
        nvjpegHandle handle = new nvjpegHandle();
        NvJpegCheck.nvjpeg(nvjpeg.nvjpegCreateEx(backend.code, (nvjpegDevAllocator_t) null,
            (nvjpegPinnedAllocator_t) null, nvjpeg.NVJPEG_FLAGS_DEFAULT, handle), "nvjpegCreateEx(" + backend + ")");
        nvjpegJpegState state = new nvjpegJpegState();
        int status = nvjpeg.nvjpegJpegStateCreate(handle, state);
        if (status != 0) {
            nvjpeg.nvjpegDestroy(handle);
            NvJpegCheck.nvjpeg(status, "nvjpegJpegStateCreate(" + backend + ")");
        }
        return new NvJpegDecoder(backend, cpuThreads, handle, state);
    }

    public Backend backend() {
        return backend;
    }

    /**
     * Decodes every image of {@code batch} into its output slot, queued on {@code stream} (null: the default
     * stream). A corrupt or unsupported stream fails the whole call with a {@link CudaException} naming the
     * records of the batch; the output is then undefined and must not reach a trainer.
     */
    public void decode(NvJpegBatch batch, CUstream_st stream) {
        if (closed) {
            throw new IllegalStateException("this nvJPEG decoder is closed");
        }
        int n = batch.count();
        if (n == 0) {
            return;
        }
        if (n != initializedBatch) { // the batch size is part of nvJPEG's batched state: a short last batch re-sizes it
            NvJpegCheck.nvjpeg(nvjpeg.nvjpegDecodeBatchedInitialize(handle, state, n, cpuThreads, nvjpeg.NVJPEG_OUTPUT_RGBI),
                "nvjpegDecodeBatchedInitialize(" + n + " images)");
            initializedBatch = n;
        }
        if (batch != boundBatch) {
            sources = new PointerPointer<>(new AddressPointer().at(batch.sourcesAddress(), (long) batch.capacity() * 8));
            lengths = new SizeTPointer(new AddressPointer().at(batch.lengthsAddress(), (long) batch.capacity() * 8));
            images = new nvjpegImage_t(new AddressPointer().at(batch.imagesAddress(),
                (long) batch.capacity() * NvJpegBatchDescriptor.IMAGE_LENGTH));
            boundBatch = batch;
        }
        int status = nvjpeg.nvjpegDecodeBatched(handle, state, sources, lengths, images, stream);
        if (status != 0) {
            throw new CudaException("nvjpegDecodeBatched(" + backend + ", " + n + " images, records "
                + batch.record(0) + ".." + batch.record(n - 1) + ")", status, NvJpegCheck.describeNvjpeg(status));
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            nvjpeg.nvjpegJpegStateDestroy(state);
            nvjpeg.nvjpegDestroy(handle);
        }
    }
}
