package io.pinshard.memory;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** The allocator contract on ordinary off-heap memory, plus: closing gives the memory back to the JVM at once. */
class HostMemoryAllocatorTest extends AbstractBatchMemoryAllocatorTest {
    @Override
    protected BatchMemoryAllocator createAllocator() {
        return HostMemoryAllocator.INSTANCE;
    }

    @Override
    protected boolean pageLocked() {
        return false;
    }

    @Override
    protected boolean promisesZeroedMemory() {
        return true;
    }

    private static long directBytes() {
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                return pool.getMemoryUsed();
            }
        }
        throw new AssertionError("no direct buffer pool bean");
    }

    @Test
    void closeFreesTheDirectMemoryAtOnceNotAtTheNextGc() {
        long length = 64L << 20; // far above the JDK's own small temporary direct buffers
        NativeRegion region = allocator.allocate(length, 4096);
        long open = directBytes();
        region.close();
        long freed = open - directBytes();
        assertTrue(freed >= length, "closing freed " + freed + " direct bytes of " + length);
    }
}
