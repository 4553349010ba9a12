package io.pinshard.cli;

import io.pinshard.memory.HeapCounter;
import io.pinshard.loader.Loader;
import io.pinshard.loader.LoaderStats;
import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code bench}'s warm-up. Until C2 compiles the crop kernels they run interpreted and allocate (hundreds of KB per
 * batch), so a fixed short warm-up made heap/batch read the JIT, not the loader. {@code auto} runs whole epochs in
 * windows of at least {@value #WINDOW_SECONDS} s and, from {@value #AUTO_MIN_SECONDS} s on, stops after the first
 * window that allocated at most {@value #SETTLED_BYTES_PER_BATCH} B per batch or in which the JIT compiled nothing
 * (what it allocates then is the steady state, as with a streamed dataset); at the latest after the epoch that
 * ends past {@value #AUTO_MAX_SECONDS} s. "Compiled nothing" is a state, not a quiet second: no compilation finished
 * in the window and its compiler threads spent no CPU on one still running (on a loaded machine a starved C2 takes
 * seconds over the kernels, finishing nothing in a window while they run interpreted). Never while the vector crop
 * kernel is still being compiled ({@link Loader#cropKernelWarmingUp}): its workers' scalar twin allocates nothing, so
 * heap alone would settle at once and measure the twin's rate.
 */
final class BenchWarmup {
    static final String AUTO = "auto";
    static final double AUTO_MIN_SECONDS = 2;
    static final double AUTO_MAX_SECONDS = 30;
    static final double WINDOW_SECONDS = 1;
    static final double SETTLED_BYTES_PER_BATCH = 64;
    /** Compilation time in a window below which the JIT counts as done. */
    private static final long JIT_QUIET_MILLIS = 5;
    /** CPU clock ticks (10 ms each) the compiler threads may spend in a window that counts as quiet. */
    private static final long JIT_QUIET_TICKS = 2;
    private static final Path TASKS = Path.of("/proc/self/task");

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

    /** Where a window of whole epochs started: time, heap, batches, JIT time and compiler threads' CPU so far. */
    private static final class Window {
        final long start = System.nanoTime();
        final long heap;
        final long batches;
        final long jitMillis;
        final Map<String, Long> compilerTicks;

        Window(Loader loader, CompilationMXBean jit, boolean jitTimed) {
            batches = loader.stats().batches();
            jitMillis = jitTimed ? jit.getTotalCompilationTime() : 0;
            compilerTicks = compilerThreadTicks();
            heap = heap(loader); // last, so that the marks' own allocations fall outside the window
        }

        /** Whether heap per batch has settled since this window started (or the JIT was quiet through it). */
        boolean settled(Loader loader, CompilationMXBean jit, boolean jitTimed) {
            long allocated = heap(loader) - heap;
            long windowBatches = loader.stats().batches() - batches;
            double perBatch = windowBatches == 0 ? 0 : (double) allocated / windowBatches;
            boolean jitQuiet = jitTimed && jit.getTotalCompilationTime() - jitMillis <= JIT_QUIET_MILLIS
                && ticksSince(compilerTicks, compilerThreadTicks()) <= JIT_QUIET_TICKS;
            return (perBatch <= SETTLED_BYTES_PER_BATCH || jitQuiet) && !Loader.cropKernelWarmingUp();
        }
    }

    /**
     * CPU clock ticks (user + system) of each JIT compiler thread of this JVM, by thread id, from Linux's
     * /proc/self/task/ID/stat (the JVM hides these threads from ThreadMXBean); empty where /proc cannot be read.
     */
    static Map<String, Long> compilerThreadTicks() {
        Map<String, Long> ticks = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                try {
                    long used = compilerTicks(Files.readString(task.resolve("stat")));
                    if (used >= 0) {
                        ticks.put(task.getFileName().toString(), used);
                    }
                } catch (IOException | RuntimeException gone) {
                    // a thread that ended while listed
                }
            }
        } catch (IOException | RuntimeException unreadable) {
            // no /proc: the compilation time alone judges
        }
        return ticks;
    }

    /** utime + stime of a /proc task stat line whose name is a compiler thread's ("C2 CompilerThre", ...), else -1. */
    static long compilerTicks(String stat) {
        int close = stat.lastIndexOf(')');
        String name = stat.substring(stat.indexOf('(') + 1, close);
        if (!name.contains("CompilerT")) {
            return -1;
        }
        String[] fields = stat.substring(close + 2).trim().split(" "); // from field 3 (state) on
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // fields 14 and 15
    }

    /** Ticks the compiler threads spent from {@code before} to {@code after} (a thread started since counts whole). */
    static long ticksSince(Map<String, Long> before, Map<String, Long> after) {
        long spent = 0;
        for (Map.Entry<String, Long> thread : after.entrySet()) {
            spent += thread.getValue() - before.getOrDefault(thread.getKey(), 0L);
        }
        return spent;
    }

    /** Heap the workers and this (the consuming) thread allocated so far. */
    private static long heap(Loader loader) {
        LoaderStats stats = loader.stats();
        return stats.workerHeapBytes() + HeapCounter.currentThreadAllocatedBytes();
    }
}
