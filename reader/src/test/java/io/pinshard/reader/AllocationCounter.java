package io.pinshard.reader;

import java.lang.management.ManagementFactory;

/** Bytes allocated on the JVM heap by the current thread, from HotSpot's per-thread counter. */
final class AllocationCounter {
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private AllocationCounter() {
    }

    static long currentThread() {
        return THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
    }
}
