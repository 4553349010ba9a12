package io.pinshard.memory;

import java.lang.management.ManagementFactory;
import java.util.Collection;

/**
 * Heap bytes allocated by threads, via {@code com.sun.management.ThreadMXBean} where the JVM has it: the
 * one allocation counter of the project (the loader's per-worker stats, {@code bench}, the demo, the
 * zero-heap tests and benchmarks all read this one).
 */
public final class HeapCounter {
    private static final java.lang.management.ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final boolean SUPPORTED = THREADS instanceof com.sun.management.ThreadMXBean bean
        && bean.isThreadAllocatedMemorySupported() && enable(bean);

    private HeapCounter() {
    }

    private static boolean enable(com.sun.management.ThreadMXBean bean) {
        if (!bean.isThreadAllocatedMemoryEnabled()) {
            bean.setThreadAllocatedMemoryEnabled(true);
        }
        return true;
    }

    /** Bytes this thread allocated so far, or -1 when unknown. */
    public static long currentThreadAllocatedBytes() {
        return SUPPORTED ? ((com.sun.management.ThreadMXBean) THREADS).getCurrentThreadAllocatedBytes() : -1;
    }

    /** Bytes {@code threads} allocated so far, summed (threads that ended count 0), or -1 when unknown. */
    public static long allocatedBytes(Collection<Thread> threads) {
        if (!SUPPORTED) {
            return -1;
        }
        long[] ids = new long[threads.size()];
        int i = 0;
        for (Thread thread : threads) {
            ids[i++] = thread.getId();
        }
        return sum(ids);
    }

    /** Bytes every live thread allocated so far, summed (so loader workers count), or -1 when unknown. */
    public static long allThreadsAllocatedBytes() {
        return SUPPORTED ? sum(THREADS.getAllThreadIds()) : -1;
    }

    private static long sum(long[] threadIds) {
        long total = 0;
        for (long bytes : ((com.sun.management.ThreadMXBean) THREADS).getThreadAllocatedBytes(threadIds)) {
            total += Math.max(0, bytes);
        }
        return total;
    }
}
