package io.pinshard.cuda.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pinshard.cuda.CudaTestSupport;
import io.pinshard.memory.AbstractBatchMemoryAllocatorTest;
import io.pinshard.memory.BatchMemoryAllocator;
import io.pinshard.memory.HostMemoryAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The allocator contract on off-heap memory page-locked in place ({@link HostRegistration#registering}); skips
 * without a CUDA driver. The leak check also covers the delegate: every region goes back to the host allocator.
 */
class RegisteredHostMemoryTest extends AbstractBatchMemoryAllocatorTest {
    private long delegateRegionsBefore;

    @Override
    protected BatchMemoryAllocator createAllocator() {
        CudaTestSupport.assumeCuda();
        return HostRegistration.registering(HostMemoryAllocator.INSTANCE);
    }

    @Override
    protected boolean pageLocked() {
        return true;
    }

    @Override
    protected boolean promisesZeroedMemory() {
        return true; // the delegate's direct buffers are zero-filled and registering does not write them
    }

    @BeforeEach
    void countDelegate() {
        delegateRegionsBefore = HostMemoryAllocator.INSTANCE.liveRegions();
    }

    @AfterEach
    void delegateGotItsMemoryBack() {
        assertEquals(delegateRegionsBefore, HostMemoryAllocator.INSTANCE.liveRegions(), "host regions left open");
    }
}
