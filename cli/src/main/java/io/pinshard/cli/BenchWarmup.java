package io.pinshard.cli;

import io.pinshard.memory.HeapCounter;
import io.pinshard.loader.Loader;
import io.pinshard.loader.LoaderStats;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * {@code bench}'s warm-up. Until C2 compiles the crop kernels they run interpreted and allocate (hundreds of KB per
 * batch), so a fixed short warm-up made heap/batch read the JIT, not the loader. {@code auto} runs whole epochs in
 * windows of at least {@value #WINDOW_SECONDS} s and, from {@value #AUTO_MIN_SECONDS} s on, stops after the first
 * window that allocated at most {@value #SETTLED_BYTES_PER_BATCH} B per batch or in which the JIT compiled nothing
 * (what it allocates then is the steady state, as with a streamed dataset); at the latest after the epoch that
 * ends past {@value #AUTO_MAX_SECONDS} s.
 */
final class BenchWarmup {
    static final String AUTO = "auto";
    static final double AUTO_MIN_SECONDS = 2;
    static final double AUTO_MAX_SECONDS = 30;
    static final double WINDOW_SECONDS = 1;
    static final double SETTLED_BYTES_PER_BATCH = 64;
    /** Compilation time in a window below which the JIT counts as done. */
    private static final long JIT_QUIET_MILLIS = 5;

    /**
     * How the warm-up went.
     *
     * @param settled false when auto stopped at its cap with heap per batch still above the settled mark and the JIT
     *                still compiling, or when fixed seconds were given (nothing was checked)
     */
    record Outcome(double seconds, int epochs, boolean settled) {
    }

    private BenchWarmup() {
    }

    /** The seconds {@code --warmup} gives, or null for auto; an error for anything else. */
    static Double parse(String warmup) {
        if (AUTO.equalsIgnoreCase(warmup)) {
            return null;
        }
        try {
            double seconds = Double.parseDouble(warmup);
            if (seconds >= 0 && seconds < 1e6) {
                return seconds;
            }
        } catch (NumberFormatException e) {
            // fall through to the message
        }
        throw new IllegalArgumentException("--warmup must be auto or seconds >= 0: " + warmup);
    }

    /** Runs epochs 0, 1, ... through {@code nextEpoch} (on this thread) for the warm-up {@code seconds} asks for (null: auto). */
    static Outcome run(Double seconds, Loader loader, Runnable nextEpoch) {
        long start = System.nanoTime();
        long end = start + (long) ((seconds != null ? seconds : AUTO_MAX_SECONDS) * 1e9);
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean jitTimed = jit != null && jit.isCompilationTimeMonitoringSupported();
        Window window = new Window(loader, jit, jitTimed);
        for (int epochs = 1; ; epochs++) {
            nextEpoch.run();
            long now = System.nanoTime();
            if (seconds != null) {
                if (now >= end) {
                    return new Outcome((now - start) / 1e9, epochs, false);
                }
                continue;
            }
            if (now - window.start < WINDOW_SECONDS * 1e9) {
                continue; // whole epochs until the window is long enough to judge
            }
            // Before the minimum a window only moves on; a large dataset's first epoch may already be past it.
            boolean judged = now - start >= AUTO_MIN_SECONDS * 1e9;
            boolean settled = judged && window.settled(loader, jit, jitTimed);
            if (settled || now >= end) {
                return new Outcome((now - start) / 1e9, epochs, settled);
            }
            window = new Window(loader, jit, jitTimed);
        }
    }

    /** Where a window of whole epochs started: time, heap, batches and JIT time so far. */
    private static final class Window {
        final long start = System.nanoTime();
        final long heap;
        final long batches;
        final long jitMillis;

        Window(Loader loader, CompilationMXBean jit, boolean jitTimed) {
            batches = loader.stats().batches();
            jitMillis = jitTimed ? jit.getTotalCompilationTime() : 0;
            heap = heap(loader); // last, so that the marks' own allocations fall outside the window
        }

        /** Whether heap per batch has settled since this window started (or the JIT was quiet through it). */
        boolean settled(Loader loader, CompilationMXBean jit, boolean jitTimed) {
            long allocated = heap(loader) - heap;
            long windowBatches = loader.stats().batches() - batches;
            double perBatch = windowBatches == 0 ? 0 : (double) allocated / windowBatches;
            boolean jitQuiet = jitTimed && jit.getTotalCompilationTime() - jitMillis <= JIT_QUIET_MILLIS;
            return perBatch <= SETTLED_BYTES_PER_BATCH || jitQuiet;
        }
    }

    /** Heap the workers and this (the consuming) thread allocated so far. */
    private static long heap(Loader loader) {
        LoaderStats stats = loader.stats();
        return stats.workerHeapBytes() + HeapCounter.currentThreadAllocatedBytes();
    }
}
