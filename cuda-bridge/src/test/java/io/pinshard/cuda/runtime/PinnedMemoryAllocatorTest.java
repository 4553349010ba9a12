package io.pinshard.cuda.runtime;

import io.pinshard.cuda.CudaTestSupport;
import io.pinshard.memory.AbstractBatchMemoryAllocatorTest;
import io.pinshard.memory.BatchMemoryAllocator;

/** The allocator contract on {@code cudaHostAlloc} memory; skips with the probe's reason without a CUDA driver. */
class PinnedMemoryAllocatorTest extends AbstractBatchMemoryAllocatorTest {
    @Override
    protected BatchMemoryAllocator createAllocator() {
        CudaTestSupport.assumeCuda();
        return new PinnedMemoryAllocator();
    }

    @Override
    protected boolean pageLocked() {
        return true;
    }
}
