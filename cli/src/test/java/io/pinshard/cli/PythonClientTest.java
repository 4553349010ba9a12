package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.format.Json;
import io.pinshard.reader.ChildJvm;
import io.pinshard.serve.ServeTestData;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the Python client's tests (python/tests, unittest) against {@code pinshard serve} started from this class
 * path, with Debian's {@code /usr/bin/python3} when it has torch and numpy ({@code apt-get install python3-torch
 * python3-numpy}, which .ci/run does); skips, saying which is missing, otherwise.
 */
class PythonClientTest {
    private static final Path PYTHON = Path.of("/usr/bin/python3");
    private static final int RECORDS = 50;

    @TempDir
    Path temp;

    @Test
    void pythonClientTestsPass() throws Exception {
        assumeTrue(Files.isExecutable(PYTHON), PYTHON + " is not installed");
        String missing = missingModules();
        assumeTrue(missing.isEmpty(), PYTHON + " lacks " + missing + ": apt-get install python3-torch python3-numpy");
        Path repo = Path.of(System.getProperty("pinshard.repo", "..")).toAbsolutePath().normalize();
        Path dataset = ServeTestData.write(temp.resolve("data"), RECORDS);
        List<String> pinshard = ChildJvm.command(List.of(ChildJvm.pinshardFlags().toArray(new String[0])),
            PinshardCommand.class);
        ProcessBuilder builder = new ProcessBuilder(PYTHON.toString(), "-m", "unittest", "discover", "-v", "-s",
            repo.resolve("python/tests").toString()).redirectErrorStream(true);
        builder.environment().put("PINSHARD_COMMAND", new String(Json.compact(pinshard), StandardCharsets.UTF_8));
        builder.environment().put("PINSHARD_TEST_DATASET", dataset.toString());
        builder.environment().put("PINSHARD_TEST_RECORDS", Integer.toString(RECORDS));
        builder.environment().put("PINSHARD_TEST_FIELDS_DATASET",
            ServeTestData.writeWithFields(temp.resolve("fields"), RECORDS).toString());
        Path log = temp.resolve("python-tests.log");
        builder.redirectOutput(log.toFile());
        Process python = builder.start();
        if (!python.waitFor(5, TimeUnit.MINUTES)) {
            python.destroyForcibly();
            throw new AssertionError("the Python client tests ran past 5 minutes:\n" + Files.readString(log));
        }
        String output = Files.readString(log);
        System.out.println(output);
        assertEquals(0, python.exitValue(), "python -m unittest failed:\n" + output);
    }

    /** Which of torch and numpy {@code /usr/bin/python3} cannot import ("" when both are there). */
    private static String missingModules() throws IOException, InterruptedException {
        List<String> missing = new ArrayList<>();
        for (String module : List.of("numpy", "torch")) {
            Process probe = new ProcessBuilder(PYTHON.toString(), "-c", "import " + module).redirectErrorStream(true)
                .start();
            probe.getInputStream().readAllBytes();
            if (probe.waitFor() != 0) {
                missing.add(module);
            }
        }
        return String.join(" and ", missing);
    }
}
