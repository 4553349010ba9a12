package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.fixtures.ServeTestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's process contract, through {@code ./pinshard} as a supervisor, Python's {@code Popen} or a shell user
 * starts it: the PID it hands out is the JVM's, so a signal to it ends pinshard (and no JVM is left behind) within
 * 5 s; a serve killed with -9 leaves no ring in /dev/shm; a subcommand's class-data-sharing archive is written by its
 * first run however that run ends, put into place by the next start, and no temporary file stays in the cache. Each
 * test runs with a HOME of its own, so every run here is a subcommand's first run (the case the launcher got wrong).
 */
@org.junit.jupiter.api.Tag("process")
class LauncherProcessTest {
    private static final Path SHM = Path.of("/dev/shm");

    @TempDir
    Path temp;

    private Path home() throws Exception {
        return Files.createDirectories(temp.resolve("home"));
    }

    private Path cds(Path home) {
        return home.resolve(".cache/pinshard/cds");
    }

    private static String ringName() {
        return "pinshard-accept-" + UUID.randomUUID() + ".ring";
    }

    /** Starts {@code ./pinshard serve} on a small dataset and waits for its ready line. */
    private Process startServe(Path home, Path ring) throws Exception {
        Path dataset = temp.resolve("data");
        if (!Files.exists(dataset)) {
            ServeTestData.write(dataset, 40);
        }
        Process serve = Launcher.pinshard(home, "serve", dataset.toString(), "--ring", ring.toString(), "--json",
            "--batch", "4", "--crop", "16", "--workers", "1").redirectError(temp.resolve("serve.err").toFile()).start();
        Processes.awaitLine(serve, "\"ready\"", 120);
        return serve;
    }

    @Test
    void sigtermToTheLaunchersPidStopsServeAndTheArchiveGoesIntoPlace() throws Exception {
        Path home = home();
        Path ring = SHM.resolve(ringName());
        Process serve = startServe(home, ring);
        assertTrue(serve.info().command().orElse("").endsWith("java"),
            "the pid the launcher handed out is the JVM's (exec): " + serve.info().command());
        serve.destroy(); // SIGTERM, as Popen.terminate(), systemd and `kill PID` send
        assertTrue(serve.waitFor(5, TimeUnit.SECONDS), "serve ended within 5 s of SIGTERM to its pid");
        assertTrue(Processes.await(() -> Processes.withArgument(ring.toString()).isEmpty(), 2),
            "no JVM with the ring survives: " + Processes.withArgument(ring.toString()));
        assertFalse(Files.exists(ring), "the server unlinked its ring");
        // The stopped JVM put its class list into place itself: no LIST.PID.tmp waits for the next start (a 190 KB
        // one was left by each `with pinshard.serve(...)` block).
        assertTrue(names(cds(home)).stream().noneMatch(n -> n.endsWith(".tmp")) && names(cds(home)).stream()
            .anyMatch(n -> n.startsWith("serve-") && n.endsWith(".classlist")), "a stopped server leaves its class "
            + "list in place and no temporary file: " + names(cds(home)));
        // The first run recorded the classes it loaded; the next start of serve puts that list into place and dumps
        // the archive from it in the background.
        Launcher.Result help = Launcher.run(Launcher.pinshard(home, "serve", "--help"), temp.resolve("logs"), 60);
        assertEquals(0, help.status(), help.toString());
        assertTrue(Processes.await(() -> names(cds(home)).stream().anyMatch(n -> n.startsWith("serve-")
            && n.endsWith(".jsa")), 90), "serve's archive is in place after a stop by signal: " + names(cds(home))
            + "\nserve's stderr:\n" + Files.readString(temp.resolve("serve.err")) + "\n" + help);
        assertTrue(Processes.await(() -> names(cds(home)).stream().noneMatch(n -> n.endsWith(".tmp")
            || n.endsWith(".discard")), 10), "no temporary file is left in the cache: " + names(cds(home)));
        Path serveAgain = SHM.resolve(ringName());
        Process second = startServe(home, serveAgain);
        assertTrue(second.info().commandLine().orElse("").contains("-XX:SharedArchiveFile="),
            "the second serve maps the archive: " + second.info().commandLine());
        second.destroy();
        assertTrue(second.waitFor(5, TimeUnit.SECONDS), "the second serve ended within 5 s of SIGTERM");
    }

    private static List<String> names(Path directory) {
        try {
            return Processes.names(directory);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void sigkillOfServeWithNoClientLeavesNoRing() throws Exception {
        Path ring = SHM.resolve(ringName());
        Process serve = startServe(home(), ring);
        assertTrue(Files.exists(ring), "the ring is published");
        serve.destroyForcibly(); // SIGKILL: nothing in the JVM runs
        assertTrue(serve.waitFor(5, TimeUnit.SECONDS));
        assertTrue(Processes.await(() -> !Files.exists(ring), 2), "the ring's reaper removed " + ring);
        assertTrue(Processes.withArgument(ring.toString()).isEmpty(), "nothing with the ring in its command line runs "
            + "on (the reaper exits when done): " + Processes.withArgument(ring.toString()));
        List<String> left = Processes.names(SHM).stream().filter(n -> n.startsWith(ring.getFileName().toString()))
            .toList();
        assertEquals(List.of(), left, "nothing of the ring is left in /dev/shm");
    }

    @Test
    void sigtermToTheLaunchersPidStopsBench() throws Exception {
        Path dataset = ServeTestData.write(temp.resolve("bench-data"), 40);
        Process bench = Launcher.pinshard(home(), "bench", dataset.toString(), "--seconds", "120", "--batch", "4",
            "--crop", "16", "--workers", "1").redirectErrorStream(true).redirectOutput(temp.resolve("bench.log")
            .toFile()).start();
        assertTrue(Processes.await(() -> bench.info().command().orElse("").endsWith("java")
            && !Processes.withArgument(dataset.toString()).isEmpty(), 30), "bench runs in a JVM under its pid");
        assertTrue(Processes.await(() -> Processes.threads(bench.pid()).stream()
            .anyMatch(thread -> thread.contains("(pinshard-loader")), 60), "bench's loader runs: well into the run");
        bench.destroy();
        assertTrue(bench.waitFor(5, TimeUnit.SECONDS), "bench ended within 5 s of SIGTERM to its pid:\n"
            + Files.readString(temp.resolve("bench.log")));
        assertTrue(Processes.await(() -> Processes.withArgument(dataset.toString()).isEmpty(), 2),
            "no JVM survives: " + Processes.withArgument(dataset.toString()));
    }

    @Test
    void aFailedFirstRunLeavesNoArchiveAndNoTemporaryFile() throws Exception {
        Path home = home();
        Launcher.Result failed = Launcher.run(Launcher.pinshard(home, "inspect", temp.resolve("nothing").toString()),
            temp.resolve("logs"), 60);
        assertEquals(2, failed.status(), failed.toString());
        Launcher.Result version = Launcher.run(Launcher.pinshard(home, "--version"), temp.resolve("logs"), 60);
        assertEquals(0, version.status(), version.toString());
        assertEquals(List.of(), Processes.names(cds(home)), "the failed run's archive (the error path's classes) was "
            + "dropped, and nothing else is there");
    }

    @Test
    void noIncubatorNoticeReachesTheUser() throws Exception {
        Launcher.Result help = Launcher.run(Launcher.pinshard(home(), "--help"), temp.resolve("logs"), 60);
        assertEquals(0, help.status(), help.toString());
        assertFalse(help.stderr().contains("incubator"), help.toString());
        assertTrue(help.stdout().contains("serve"), help.toString());
    }
}
