package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.fixtures.ServeTestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code with pinshard.serve(...)} (the README's Python loop) through the Python package and {@code ./pinshard} on a
 * fresh HOME (the subcommand's first run, which writes its class-data-sharing archive at exit): the block returns
 * within 2 s of its end, whether it ends normally or by an exception, the exception is shown, and nothing of the
 * session is left in /dev/shm or running.
 */
@org.junit.jupiter.api.Tag("process")
class PythonContextManagerTest {
    private static final Path PYTHON = Path.of("/usr/bin/python3");
    private static final Pattern RETURNED = Pattern.compile("returned ([0-9.]+) s after the block's end");

    @TempDir
    Path temp;

    /** The class-data archive dumps the commands started in the test's home end before the folder is removed. */
    @AfterEach
    void endDetachedArchiveDumps() throws InterruptedException {
        Launcher.endDetachedProcessesUnder(temp);
    }

    @ParameterizedTest
    @ValueSource(strings = {"ok", "raise"})
    void theBlockReturnsWithinTwoSecondsOfItsEnd(String mode) throws Exception {
        PythonModules.assumeUsable(PYTHON);
        Path home = Files.createDirectories(temp.resolve("home"));
        Path dataset = ServeTestData.write(temp.resolve("data"), 40);
        ProcessBuilder builder = new ProcessBuilder(PYTHON.toString(),
            Launcher.repo().resolve("acceptance/src/test/python/context_manager.py").toString(),
            Launcher.repo().toString(), dataset.toString(), mode);
        builder.environment().put("HOME", home.toString());
        builder.environment().remove("PINSHARD_COMMAND");
        Launcher.Result result = Launcher.run(builder, temp.resolve("logs"), 180);
        Matcher returned = RETURNED.matcher(result.stdout());
        assertTrue(returned.find(), result.toString());
        double seconds = Double.parseDouble(returned.group(1));
        System.out.println("PythonContextManagerTest " + mode + ": " + returned.group());
        assertTrue(seconds < 2.0, "the block returned " + seconds + " s after its end:\n" + result);
        if (mode.equals("raise")) {
            assertEquals(1, result.status(), result.toString());
            assertTrue(result.stderr().contains("ValueError: the training step failed"), "the exception is shown:\n"
                + result);
        } else {
            assertEquals(0, result.status(), result.toString());
        }
        Matcher ring = Pattern.compile("ring (\\S+)").matcher(result.stdout());
        assertTrue(ring.find(), result.toString());
        assertTrue(Processes.await(() -> !Files.exists(Path.of(ring.group(1))), 1), ring.group(1) + " is left");
        assertTrue(Processes.await(() -> Processes.withArgument(ring.group(1)).isEmpty(), 1),
            "no process of the session runs on: " + Processes.withArgument(ring.group(1)));
    }
}
