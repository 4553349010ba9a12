package io.pinshard.acceptance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** What the process-contract tests look at: processes by a token of their command line, files left behind. */
final class Processes {
    private Processes() {
    }

    /** Live processes whose command line contains {@code token} (a test's own dataset or ring path). */
    static List<ProcessHandle> withArgument(String token) {
        return ProcessHandle.allProcesses()
            .filter(p -> p.pid() != ProcessHandle.current().pid())
            .filter(p -> p.info().commandLine().map(line -> line.contains(token)).orElse(false))
            .collect(Collectors.toList());
    }

    /** Waits up to {@code seconds} for {@code condition}; whether it came true. */
    static boolean await(BooleanSupplier condition, double seconds) throws InterruptedException {
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    /** Reads {@code process}'s stdout until a line contains {@code marker}; the lines read (fails at end of file). */
    static String awaitLine(Process process, String marker, long timeoutSeconds) throws Exception {
        StringBuilder seen = new StringBuilder();
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    synchronized (seen) {
                        seen.append(line).append('\n');
                        seen.notifyAll();
                    }
                }
            } catch (IOException ignored) {
                // the process went
            }
        }, "await-line");
        reader.setDaemon(true);
        reader.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        synchronized (seen) {
            while (seen.indexOf(marker) < 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || (!process.isAlive() && !reader.isAlive())) {
                    throw new AssertionError("no line with '" + marker + "' in " + timeoutSeconds + " s (alive: "
                        + process.isAlive() + "):\n" + seen);
                }
                seen.wait(Math.max(1, Math.min(100, left / 1_000_000)));
            }
            return seen.toString();
        }
    }

    /**
     * The threads of process {@code pid} as their /proc/PID/task/TID/stat lines ("TID (NAME) STATE ...", NAME the
     * thread's first 15 characters); none once the process is gone, and none of a thread that ended meanwhile.
     */
    static List<String> threads(long pid) {
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            return tasks.flatMap(task -> {
                try {
                    return Stream.of(Files.readString(task.resolve("stat")));
                } catch (IOException gone) {
                    return Stream.empty();
                }
            }).collect(Collectors.toList());
        } catch (IOException | UncheckedIOException gone) {
            return List.of();
        }
    }

    /** The state letter of a {@link #threads} line: R, S, D, T (stopped), t, Z, ... */
    static char state(String threadStat) {
        return threadStat.charAt(threadStat.lastIndexOf(')') + 2);
    }

    /** The names in {@code directory} (none when it does not exist). */
    static List<String> names(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }
}
