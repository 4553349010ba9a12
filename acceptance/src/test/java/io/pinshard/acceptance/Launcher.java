package io.pinshard.acceptance;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Starts what a user starts: {@code ./pinshard} of this checkout (already packaged by the reactor, so the launcher
 * does not build) with a home of the test's own, so nothing a developer's ~/.cache holds is seen or touched.
 */
final class Launcher {
    private Launcher() {
    }

    /** The checkout's root (surefire's {@code pinshard.repo}). */
    static Path repo() {
        return Path.of(System.getProperty("pinshard.repo", "..")).toAbsolutePath().normalize();
    }

    /** {@code ./pinshard}. */
    static Path script() {
        return repo().resolve("pinshard");
    }

    /** A process builder for {@code ./pinshard ARGS} in the repository, with HOME (and XDG_CACHE_HOME) set to home. */
    static ProcessBuilder pinshard(Path home, String... args) {
        List<String> command = new ArrayList<>();
        command.add(script().toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(repo().toFile());
        Map<String, String> env = builder.environment();
        env.put("HOME", home.toString());
        env.remove("XDG_CACHE_HOME");
        env.remove("PINSHARD_COMMAND");
        return builder;
    }

    /**
     * {@code ./pinshard ARGS --s3-path-style} against the store at {@code endpoint}, configured as
     * docs/object-storage.md says: the SDK's {@code AWS_*} variables (none of the caller's kept). C1 only and no
     * class-data archive: runs of a few seconds each, where C2's compiles and each command's archive dump (at its
     * first run) cost more CPU than they save (a third to half of the time).
     */
    static ProcessBuilder onStore(Path home, URI endpoint, String key, String secret, List<String> javaOptions,
                                  Map<String, String> settings, String... args) {
        List<String> withPathStyle = new ArrayList<>(List.of(args));
        withPathStyle.add("--s3-path-style");
        ProcessBuilder builder = pinshard(home, withPathStyle.toArray(String[]::new));
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(name -> name.startsWith("AWS_") || name.startsWith("PINSHARD_S3"));
        env.put("AWS_ENDPOINT_URL", endpoint.toString());
        env.put("AWS_REGION", "us-east-1");
        env.put("AWS_ACCESS_KEY_ID", key);
        env.put("AWS_SECRET_ACCESS_KEY", secret);
        List<String> jvm = new ArrayList<>(List.of("-XX:TieredStopAtLevel=1"));
        jvm.addAll(javaOptions);
        env.put("PINSHARD_JAVA_OPTS", String.join(" ", jvm));
        env.put("PINSHARD_CDS", "0");
        env.putAll(settings);
        return builder;
    }

    /** What a finished command printed and how it ended. */
    record Result(int status, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + status + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
        }
    }

    /**
     * Ends what a test's commands left running detached with {@code dir} in their command line, and waits until each
     * has exited, so that JUnit can remove the folder: the launcher and the wheel dump a command's class-data archive
     * into {@code $HOME/.cache/pinshard/cds} in a detached process at the lowest priority, which on a loaded machine
     * outlived DocsAcceptanceTest's last block (the temporary folder's removal then failed on the archive's folder).
     * An archive is a cache: the next start of the command dumps it again.
     */
    static void endDetachedProcessesUnder(Path dir) throws InterruptedException {
        String path = dir.toAbsolutePath().toString();
        long self = ProcessHandle.current().pid();
        List<ProcessHandle> left = ProcessHandle.allProcesses()
            .filter(process -> process.pid() != self)
            .filter(process -> process.info().commandLine().map(line -> line.contains(path)).orElse(false))
            .toList();
        left.forEach(ProcessHandle::destroy);
        for (ProcessHandle process : left) {
            try {
                process.onExit().get(30, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                process.destroyForcibly();
                awaitExit(process);
            } catch (ExecutionException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static void awaitExit(ProcessHandle process) throws InterruptedException {
        try {
            process.onExit().get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs the builder to its end (at most timeoutSeconds), output captured in files beside home. */
    static Result run(ProcessBuilder builder, Path logs, long timeoutSeconds) throws IOException, InterruptedException {
        Files.createDirectories(logs);
        Path out = Files.createTempFile(logs, "stdout", ".log");
        Path err = Files.createTempFile(logs, "stderr", ".log");
        Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor();
            throw new AssertionError("ran past " + timeoutSeconds + " s: " + builder.command() + "\n"
                + Files.readString(out, StandardCharsets.UTF_8) + Files.readString(err, StandardCharsets.UTF_8));
        }
        return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
    }
}
