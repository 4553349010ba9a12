package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/build-wheel.sh with a python that cannot build wheels (a venv without pip, so without setuptools and wheel:
 * as a pyenv or conda python3 meets it, which stopped at pip's "invalid command 'bdist_wheel'"): it names the
 * interpreter and what it lacks, and how to get it, before it builds anything.
 */
@Tag("process")
class BuildWheelScriptTest {
    @TempDir
    Path temp;

    @Test
    void aPythonWithoutSetuptoolsIsNamedWithWhatItLacks() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/python3")), "/usr/bin/python3 makes the bare venv");
        Path venv = temp.resolve("bare");
        Launcher.Result created = Launcher.run(new ProcessBuilder("/usr/bin/python3", "-m", "venv", "--without-pip",
            venv.toString()), temp.resolve("logs"), 60);
        assumeTrue(created.status() == 0, "python3-venv is not installed: " + created);
        Path python = venv.resolve("bin/python");
        ProcessBuilder build = new ProcessBuilder(Launcher.repo().resolve("scripts/build-wheel.sh").toString(),
            temp.resolve("dist").toString());
        build.environment().put("PYTHON", python.toString());
        Launcher.Result result = Launcher.run(build, temp.resolve("logs"), 60);
        assertEquals(1, result.status(), result.toString());
        assertEquals("", result.stdout(), result.toString());
        assertTrue(result.stderr().startsWith("build-wheel: " + python + " has no setuptools wheel pip (Debian/Ubuntu: "
            + "sudo apt-get install python3-setuptools python3-wheel python3-pip; or PYTHON=/usr/bin/python3"),
            result.toString());
        assertTrue(!Files.exists(temp.resolve("dist")) || Files.list(temp.resolve("dist")).findAny().isEmpty(),
            "no wheel");
    }
}
