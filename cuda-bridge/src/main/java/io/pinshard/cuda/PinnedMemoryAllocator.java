package io.pinshard.cuda;

import io.pinshard.memory.BatchMemoryAllocator;
import io.pinshard.memory.NativeRegion;
import io.pinshard.memory.OwnedRegion;
import io.pinshard.memory.RegionCountingAllocator;
import org.agrona.BitUtil;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.Pointer;

/**
 * Batch slots in page-locked host memory from {@code cudaHostAlloc} (portable: pinned for every context), so
 * {@code cudaMemcpyAsync} from them is a true asynchronous DMA. The loader takes this as its
 * {@link BatchMemoryAllocator}. Requires CUDA ({@link CudaAvailability#require()}).
 */
public final class PinnedMemoryAllocator extends RegionCountingAllocator {
    private static final int PAGE = 4096;

    public PinnedMemoryAllocator() {
        super("cuda-pinned");
        CudaAvailability.require();
    }

    @Override
    public NativeRegion allocate(long length, int alignment) {
        checkAllocation(length, alignment);
        // cudaHostAlloc returns page-aligned memory; larger alignments get padding.
        long padding = alignment > PAGE ? alignment : 0;
        Pointer base = new Pointer();
        int status = cudart.cudaHostAlloc(base, length + padding, cudart.cudaHostAllocPortable);
        if (status == cudart.cudaErrorMemoryAllocation) {
            throw new OutOfMemoryError("cudaHostAlloc could not pin " + (length + padding) + " bytes");
        }
        CudaCheck.runtime(status, "cudaHostAlloc(" + (length + padding) + " bytes)");
        return new PinnedRegion(this, base, BitUtil.align(base.address(), alignment), length);
    }

    private static final class PinnedRegion extends OwnedRegion {
        private final Pointer base;

        PinnedRegion(PinnedMemoryAllocator owner, Pointer base, long address, long length) {
            super(owner, address, length, true);
            this.base = base;
        }

        @Override
        protected void release() {
            CudaCheck.runtime(cudart.cudaFreeHost(base), "cudaFreeHost");
        }
    }
}
