package io.pinshard.cuda;

import io.pinshard.reader.memory.BatchMemoryAllocator;
import io.pinshard.reader.memory.NativeRegion;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.Pointer;

/**
 * Batch slots in page-locked host memory from {@code cudaHostAlloc} (portable: pinned for every context), so
 * {@code cudaMemcpyAsync} from them is a true asynchronous DMA. The loader takes this as its
 * {@link BatchMemoryAllocator}. Requires CUDA ({@link CudaAvailability#require()}).
 */
public final class PinnedMemoryAllocator implements BatchMemoryAllocator {
    private static final int PAGE = 4096;

    public PinnedMemoryAllocator() {
        CudaAvailability.require();
    }

    @Override
    public NativeRegion allocate(long length, int alignment) {
        if (length <= 0) {
            throw new IllegalArgumentException("pinned regions hold at least 1 byte: " + length);
        }
        if (Long.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two: " + alignment);
        }
        // cudaHostAlloc returns page-aligned memory; larger alignments get padding.
        long padding = alignment > PAGE ? alignment : 0;
        Pointer base = new Pointer();
        int status = cudart.cudaHostAlloc(base, length + padding, cudart.cudaHostAllocPortable);
        if (status == cudart.cudaErrorMemoryAllocation) {
            throw new OutOfMemoryError("cudaHostAlloc could not pin " + (length + padding) + " bytes");
        }
        CudaCheck.runtime(status, "cudaHostAlloc(" + (length + padding) + " bytes)");
        long aligned = (base.address() + alignment - 1) & -(long) alignment;
        return new PinnedRegion(base, aligned, length);
    }

    @Override
    public String name() {
        return "cuda-pinned";
    }

    private static final class PinnedRegion implements NativeRegion {
        private Pointer base;
        private final long address;
        private final long length;

        PinnedRegion(Pointer base, long address, long length) {
            this.base = base;
            this.address = address;
            this.length = length;
        }

        @Override
        public long address() {
            return address;
        }

        @Override
        public long length() {
            return length;
        }

        @Override
        public boolean pageLocked() {
            return true;
        }

        @Override
        public void close() {
            Pointer held = base;
            base = null;
            if (held != null) {
                CudaCheck.runtime(cudart.cudaFreeHost(held), "cudaFreeHost");
            }
        }
    }
}
