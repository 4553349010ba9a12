package io.pinshard.acceptance;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Which of the Python client's modules (numpy, torch) a Python cannot import. */
final class PythonModules {
    private PythonModules() {
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
