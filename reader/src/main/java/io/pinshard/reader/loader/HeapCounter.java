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

    /**
     * Runs {@code round} until {@code quietRounds} rounds in a row allocate under 1 KiB on this thread, at
     * most {@code maxRounds} rounds: JIT warm-up for code (like the Vector API kernel) that allocates until
     * C2 has compiled it, and again for a while after a deoptimisation.
     */
    public static void warmUpUntilQuiet(Runnable round, int quietRounds, int maxRounds) {
        for (int rounds = 0, quiet = 0; rounds < maxRounds && quiet < quietRounds; rounds++) {
            long before = currentThreadAllocatedBytes();
            round.run();
            quiet = currentThreadAllocatedBytes() - before < 1024 ? quiet + 1 : 0;
        }
    }

    /** Bytes this thread allocated so far, or -1 when unknown. */
    public static long currentThreadAllocatedBytes() {
        return SUPPORTED ? ((com.sun.management.ThreadMXBean) THREADS).getCurrentThreadAllocatedBytes() : -1;
    }
}
