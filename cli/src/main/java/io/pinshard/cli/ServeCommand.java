package io.pinshard.cli;

import io.pinshard.format.Json;
import io.pinshard.format.Printable;
import io.pinshard.reader.Dataset;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.serve.RingDirectory;
import io.pinshard.serve.RingServer;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code pinshard serve DIR --ring PATH}: runs the loader with its slots in a shared-memory ring file that a client in
 * another process maps (the Python client in {@code python/pinshard}); the client starts epochs and resumes. Runs
 * until interrupted (SIGINT/SIGTERM), until {@code --owner-pid} exits, or with {@code --once} until its first client
 * leaves; always unlinks the ring on the way out. Layout and protocol: docs/RING.md.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
    description = "Serve loader batches to another process (e.g. PyTorch) through a shared-memory ring file.")
final class ServeCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DATASET", description = "Dataset directory (holds manifest.json), or "
        + "s3://bucket/prefix (streamed through the node's shard cache: see --cache-dir, --cache-limit).")
    String directory;

    @CommandLine.Mixin
    DatasetLocationMixin location = new DatasetLocationMixin();

    @Option(names = "--ring", paramLabel = "PATH", description = "Ring file: a bare NAME lies in this user's ring "
        + "directory ($XDG_RUNTIME_DIR/pinshard, else /dev/shm/pinshard-<uid>, mode 0700), a path with a / where it "
        + "says (default: pinshard-<pid>.ring in the ring directory).")
    String ring;

    @CommandLine.Mixin
    LoaderOptionsMixin loaderOptions;

    @Option(names = "--client-timeout", defaultValue = "30", paramLabel = "SECONDS", description = "A client whose "
        + "heartbeat stops for this long is taken for dead and its slots reclaimed (default ${DEFAULT-VALUE}, at "
        + "least 1: ten of the client's 0.1-s heartbeats); a client whose process exits is noticed within 0.1 s.")
    double clientTimeout;

    /** The shortest --client-timeout: ten client heartbeats (docs/RING.md), so a busy client is not taken for dead. */
    static final double MIN_CLIENT_TIMEOUT_S = 1;

    @Option(names = "--owner-pid", paramLabel = "PID", description = "Stop, unlinking the ring, when this process "
        + "exits (a running process; the Python launcher passes its own pid).")
    Long ownerPid;

    @Option(names = "--once", description = "Stop after the first client detaches or dies.")
    boolean once;

    @Option(names = "--json", description = "Status as one JSON object per line on stdout (for scripts).")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        double entered = processAgeMillis();
        PrintWriter out = spec.commandLine().getOut();
        checkOptions();
        Path ringPath = RingDirectory.resolve(ring, ProcessHandle.current().pid());
        LoaderOptions options = loaderOptions.builder().build();
        RingServer.Settings settings = new RingServer.Settings((long) Math.min(clientTimeout * 1e9, Long.MAX_VALUE),
            ownerPid == null ? 0 : ownerPid, once);
        long opening = System.nanoTime();
        try (Dataset dataset = location.open(directory)) {
            double datasetMillis = (System.nanoTime() - opening) / 1e6;
            RingServer server = RingServer.start(dataset, options, ringPath, settings, event -> {
                if ("ready".equals(event.get("event")) && event.get("timings") instanceof Map<?, ?> steps) {
                    event.put("timings", startupSteps(entered, datasetMillis, steps));
                }
                print(out, event);
            });
            Thread hook = new Thread(server::close, "pinshard-serve-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                while (!server.awaitStop(1, TimeUnit.SECONDS)) {
                    // serving; the threads report through the events
                }
            } finally {
                server.close();
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException alreadyShuttingDown) {
                    // the hook is running: it closed the server
                }
            }
            print(out, Map.of("event", "stopped", "ring", ringPath.toString()));
            if (server.failure() != null) {
                throw new IllegalStateException(server.failure());
            }
        }
        return 0;
    }

    /**
     * Refuses, naming the option, what would serve nobody or never stop, before the dataset or the ring is touched
     * (exit 2, as for any other bad option): an owner that is no running process, a client timeout under
     * {@link #MIN_CLIENT_TIMEOUT_S} (or not a number), a cache limit that is not a size. An empty --ring is
     * {@link RingDirectory#resolve}'s to refuse.
     */
    private void checkOptions() {
        if (!(clientTimeout >= MIN_CLIENT_TIMEOUT_S)) {
            throw new IllegalArgumentException("--client-timeout " + clientTimeout + ": give the seconds a client may "
                + "go without a heartbeat, at least " + MIN_CLIENT_TIMEOUT_S + " (the client beats every 0.1 s)");
        }
        if (ownerPid != null && ownerPid <= 0) {
            throw new IllegalArgumentException("--owner-pid " + ownerPid + ": not a process id (1 or more)");
        }
        if (ownerPid != null && !ProcessHandle.of(ownerPid).map(ProcessHandle::isAlive).orElse(false)) {
            throw new IllegalArgumentException("--owner-pid " + ownerPid + ": no running process has that id (the "
                + "server stops when it exits, so it would stop at once)");
        }
        location.cacheLimit();
    }

    /**
     * The ready event's timings, in the order they happened: jvm_ms (process start to this command, the JVM's own
     * start-up and the launcher's), dataset_open_ms, then the server's (loader_open_ms, ring_ready_ms).
     */
    private static Map<String, Object> startupSteps(double entered, double datasetMillis, Map<?, ?> server) {
        Map<String, Object> steps = new LinkedHashMap<>();
        steps.put("jvm_ms", entered);
        steps.put("dataset_open_ms", datasetMillis);
        server.forEach((key, value) -> steps.put(String.valueOf(key), value));
        return steps;
    }

    /**
     * How long this process has run, in ms (the launcher's part included: it execs the JVM in its own process), or -1.
     * From the kernel's clock ticks since boot (/proc, 10 ms steps), not {@code ProcessHandle.Info.startInstant}: that
     * adds the boot time, which Linux gives in whole seconds, so its figure was off by up to a second (it said 1.0-1.2 s
     * where the JVM's own log put this command at 0.3 s).
     */
    static double processAgeMillis() {
        try {
            String stat = java.nio.file.Files.readString(Path.of("/proc/self/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long startTicks = Long.parseLong(fields[19]); // field 22 (starttime); fields[0] is field 3
            String uptime = java.nio.file.Files.readString(Path.of("/proc/uptime"));
            double uptimeMillis = Double.parseDouble(uptime.substring(0, uptime.indexOf(' '))) * 1000.0;
            return uptimeMillis - startTicks * 10.0; // USER_HZ is 100 on Linux
        } catch (java.io.IOException | RuntimeException notLinux) {
            return ProcessHandle.current().info().startInstant()
                .map(start -> (double) (System.currentTimeMillis() - start.toEpochMilli())).orElse(-1.0);
        }
    }

    private synchronized void print(PrintWriter out, Map<String, Object> event) {
        if (json) {
            out.println(new String(Json.compact(event), StandardCharsets.UTF_8));
        } else {
            StringBuilder line = new StringBuilder("pinshard serve: ").append(event.get("event"));
            event.forEach((key, value) -> {
                if (!"event".equals(key)) {
                    line.append(' ').append(key).append('=').append(Printable.escape(String.valueOf(value)));
                }
            });
            out.println(line);
        }
        out.flush();
    }
}
