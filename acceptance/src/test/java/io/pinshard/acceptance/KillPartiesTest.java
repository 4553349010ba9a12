package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pinshard.fixtures.ServeTestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILL of each party of a served session (server, client, launcher, a Python parent of the server) at random
 * points, through {@code ./pinshard} and the Python package as a user runs them
 * ({@code acceptance/src/test/python/kill_parties.py}): after every kill nothing is left in /dev/shm and no process
 * of the session runs; no temporary file stays in the class-data-sharing cache. {@code -Dpinshard.killPoints=N}
 * kills at N points per party (default 3 here, to keep {@code mvn verify} short; the closing note of issue 23 gives
 * a 50-point run).
 */
@org.junit.jupiter.api.Tag("process")
class KillPartiesTest {
    private static final Path PYTHON = Path.of("/usr/bin/python3");

    @TempDir
    Path temp;

    /** The class-data archive dumps the commands started in the test's home end before the folder is removed. */
    @AfterEach
    void endDetachedArchiveDumps() throws InterruptedException {
        Launcher.endDetachedProcessesUnder(temp);
    }

    @Test
    void nothingIsLeftAfterAnyPartyIsKilled() throws Exception {
        PythonModules.assumeUsable(PYTHON);
        int points = Integer.getInteger("pinshard.killPoints", 3);
        Path home = Files.createDirectories(temp.resolve("home"));
        Path dataset = ServeTestData.write(temp.resolve("data"), 40);
        Path log = temp.resolve("kill-parties.log");
        ProcessBuilder builder = new ProcessBuilder(PYTHON.toString(),
            Launcher.repo().resolve("acceptance/src/test/python/kill_parties.py").toString(), Launcher.repo().toString(),
            dataset.toString(), Integer.toString(points), Long.toString(System.nanoTime()))
            .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("HOME", home.toString());
        builder.environment().remove("PINSHARD_COMMAND");
        Process driver = builder.start();
        if (!driver.waitFor(60L + 20L * 4 * points, TimeUnit.SECONDS)) {
            driver.destroyForcibly();
            throw new AssertionError("kill_parties.py ran too long:\n" + Files.readString(log));
        }
        String output = Files.readString(log);
        System.out.println(output);
        assertEquals(0, driver.exitValue(), "something was left after a kill:\n" + output);
    }
}
