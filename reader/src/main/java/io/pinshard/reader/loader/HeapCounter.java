package io.pinshard.reader.loader;

import java.lang.management.ManagementFactory;

/** Heap bytes allocated by the current thread, via {@code com.sun.management.ThreadMXBean} where the JVM has it. */
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
}
