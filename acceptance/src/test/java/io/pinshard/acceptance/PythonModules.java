package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Which of the Python client's modules (numpy, torch) a Python cannot import. */
final class PythonModules {
    private PythonModules() {
    }

    /** Skips the calling test, saying what to install, unless python is there with numpy and torch. */
    static void assumeUsable(Path python) throws Exception {
        assumeTrue(Files.isExecutable(python), python + " is not installed");
        List<String> missing = missing(python);
        assumeTrue(missing.isEmpty(), python + " lacks " + missing + ": apt-get install python3-torch python3-numpy");
    }

    static List<String> missing(Path python) throws Exception {
        List<String> missing = new ArrayList<>();
        for (String module : List.of("numpy", "torch")) {
            Process check = new ProcessBuilder(python.toString(), "-c", "import " + module)
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!check.waitFor(120, TimeUnit.SECONDS) || check.exitValue() != 0) {
                check.destroyForcibly();
                missing.add(module);
            }
        }
        return missing;
    }
}
