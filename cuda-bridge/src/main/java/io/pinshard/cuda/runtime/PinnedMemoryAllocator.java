package io.pinshard.cuda.runtime;

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
    public PinnedMemoryAllocator() {
        super("cuda-pinned");
        CudaAvailability.require();
    }

    @Override
    public NativeRegion allocate(long length, int alignment) {
        checkAllocation(length, alignment);
        // cudaHostAlloc promises no alignment: on an H200 (driver 580) small blocks came back 256-byte aligned from
        // one pool, and aligning such a block up to 4096 ran into the next one. So a block that is not aligned is
        // freed and asked for again with room to align inside it.
        Pointer base = hostAlloc(length);
        if (base.address() % alignment != 0) {
            CudaCheck.runtime(cudart.cudaFreeHost(base), "cudaFreeHost");
            base = hostAlloc(length + alignment - 1);
        }
        return new PinnedRegion(this, base, BitUtil.align(base.address(), alignment), length);
    }

    private static Pointer hostAlloc(long bytes) {
        Pointer base = new Pointer();
        int status = cudart.cudaHostAlloc(base, bytes, cudart.cudaHostAllocPortable);
        if (status == cudart.cudaErrorMemoryAllocation) {
            throw new OutOfMemoryError("cudaHostAlloc could not pin " + bytes + " bytes");
        }
        CudaCheck.runtime(status, "cudaHostAlloc(" + bytes + " bytes)");
        return base;
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
