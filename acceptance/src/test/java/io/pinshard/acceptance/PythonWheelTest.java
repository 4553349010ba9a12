package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The wheel as a PyTorch user meets it: built from this checkout by {@code scripts/build-wheel.sh} (the jar, a
 * jlink-made Java runtime, then {@code pip wheel --no-build-isolation} of a copy of python/), installed with pip into
 * a fresh virtual environment (system site packages, for Debian's torch; no index), then only the venv's
 * {@code pinshard} and {@code python} are used, outside the checkout, with a PATH of the venv's bin/ alone (no java
 * on it) and no JAVA_HOME: {@code --version}, {@code convert} of a tiny ImageFolder tree, the README's training loop
 * as the README prints it, wheel_training.py (PinshardDataset's dtype, NCHW shape, normalisation against the uint8
 * batch, len(), a state_dict round trip mid-epoch, a training loop), and wheel_ddp.py on two ranks under torchrun
 * (gloo): disjoint samples whose union is the epoch.
 */
@org.junit.jupiter.api.Tag("process")
class PythonWheelTest {
    private static final Path PYTHON = Path.of("/usr/bin/python3");
    private static final Pattern WHEEL = Pattern.compile("pinshard-[0-9.]+-py3-none-manylinux_2_[0-9]+_x86_64\\.whl");

    @TempDir
    Path temp;

    /** The class-data archive dumps the commands started in the test's home end before the folder is removed. */
    @AfterEach
    void endDetachedArchiveDumps() throws InterruptedException {
        Launcher.endDetachedProcessesUnder(temp);
    }

    @Test
    void aFreshVenvWithOnlyTheWheelConvertsAndTrains() throws Exception {
        PythonModules.assumeUsable(PYTHON);
        assumeTrue(run(temp, PYTHON.toString(), "-c", "import setuptools, wheel, pip, venv").status() == 0,
            PYTHON + " cannot build wheels: apt-get install python3-setuptools python3-wheel python3-pip python3-venv");
        Path dist = temp.resolve("dist");
        Launcher.Result wheel = run(temp, Launcher.repo().resolve("scripts/build-wheel.sh").toString(),
            dist.toString());
        assertEquals(0, wheel.status(), wheel.toString());
        Path built = Path.of(wheel.stdout().strip());
        assertTrue(WHEEL.matcher(built.getFileName().toString()).matches(), wheel.toString());
        try (ZipFile zip = new ZipFile(built.toFile())) {
            assertTrue(zip.getEntry("pinshard/_runtime/bin/java") != null, "the wheel brings its Java");
            assertTrue(zip.getEntry("pinshard/_jar/pinshard.jar") != null, "and the server jar");
        }
        Path venv = temp.resolve("venv");
        Launcher.Result created = run(temp, PYTHON.toString(), "-m", "venv", "--system-site-packages", venv.toString());
        assertEquals(0, created.status(), created.toString());
        Launcher.Result install = run(temp, venv.resolve("bin/pip").toString(), "install", "--no-index", "--no-deps",
            built.toString());
        assertEquals(0, install.status(), install.toString());

        Launcher.Result noJava = run(temp, "/bin/sh", "-c", "command -v java; echo \"JAVA_HOME=${JAVA_HOME:-}\"");
        assertEquals("JAVA_HOME=\n", noJava.stdout(), "no java for the venv's commands to find: " + noJava);
        Launcher.Result version = run(temp, venv.resolve("bin/pinshard").toString(), "--version");
        assertEquals(0, version.status(), version.toString());
        assertTrue(version.stdout().startsWith("pinshard 0.1.0"), version.toString());
        assertTrue(version.stderr().isEmpty(), "the incubator notice is dropped, nothing else is said:\n" + version);

        Launcher.Result module = run(temp, venv.resolve("bin/python").toString(), "-m", "pinshard", "--version");
        assertEquals(version.stdout(), module.stdout(), "python -m pinshard is the same command: " + module);

        Path photos = ImageFolders.classFolders(temp.resolve("photos"), 8, "cat", "dog", "fox");
        Path dataset = temp.resolve("data");
        Launcher.Result convert = run(temp, venv.resolve("bin/pinshard").toString(), "convert", photos.toString(), "-o",
            dataset.toString(), "--progress", "none");
        assertEquals(0, convert.status(), convert.toString());
        // The wheel's jar keeps only the natives pinshard loads (scripts/build-wheel.sh): OpenCV decodes PNG inputs
        // and resizes them, and resamples crops with --resampler opencv.
        Path pngs = ImageFolders.largeUniformPngs(temp.resolve("pngs"), 2, 400, 300, "a", "b");
        Launcher.Result pngConvert = run(temp, venv.resolve("bin/pinshard").toString(), "convert", pngs.toString(),
            "-o", temp.resolve("png-data").toString(), "--progress", "none");
        assertEquals(0, pngConvert.status(), pngConvert.toString());
        Launcher.Result openCvBench = run(temp, venv.resolve("bin/pinshard").toString(), "bench", dataset.toString(),
            "--resampler", "opencv", "--batch", "4", "--seconds", "1", "--warmup", "0");
        assertEquals(0, openCvBench.status(), openCvBench.toString());
        assertTrue(openCvBench.stdout().lines().anyMatch(line -> line.matches("resampler\\s+opencv")),
            openCvBench.toString());

        Path loop = temp.resolve("readme_loop.py");
        Files.writeString(loop, readmeTrainingLoop().replace("/data/pets", dataset.toString()));
        Launcher.Result readme = run(temp, venv.resolve("bin/python").toString(), loop.toString());
        assertEquals(0, readme.status(), readme.toString());
        assertTrue(readme.stdout().contains("epoch 2: 3 batches, last loss"), readme.toString());

        Launcher.Result training = run(temp, venv.resolve("bin/python").toString(),
            Launcher.repo().resolve("acceptance/src/test/python/wheel_training.py").toString(), dataset.toString(),
            "3");
        System.out.println("PythonWheelTest " + built.getFileName() + " (" + Files.size(built) + " bytes):\n"
            + training.stdout());
        assertEquals(0, training.status(), training.toString());
        assertTrue(training.stdout().contains("package 0.1.0 " + venv.toRealPath()), "the venv's package is used:\n"
            + training);
        assertTrue(training.stdout().contains("trained 3 epochs"), training.toString());

        // DDP: two ranks on this machine, started by torchrun from the venv (its python, Debian's torch through the
        // system site packages). --redirects/--tee work around torch 1.13's Std.from_str on Python 3.11, which
        // otherwise fails before starting a rank (--tee 2: a rank's stderr on the console too, as the README runs
        // it). Rendezvous on a free loopback port (--standalone always takes 29400).
        Path torchrunLogs = Files.createDirectories(temp.resolve("logs/torchrun"));
        Launcher.Result ddp = run(temp, venv.resolve("bin/python").toString(), "-m", "torch.distributed.run",
            "--nnodes=1", "--rdzv_backend=c10d", "--rdzv_endpoint=localhost:0", "--nproc_per_node=2",
            "--redirects", "2", "--tee", "2", "--log_dir",
            torchrunLogs.toString(), Launcher.repo().resolve("acceptance/src/test/python/wheel_ddp.py").toString(),
            dataset.toString());
        System.out.println(ddp.stdout());
        assertEquals(0, ddp.status(), ddp.toString());
        assertTrue(ddp.stdout().contains("disjoint, union = the epoch of 24"), ddp.toString());
    }

    /** The README's PyTorch training loop, as printed there. */
    private static String readmeTrainingLoop() throws IOException {
        return DocBlocks.read(Launcher.repo().resolve("README.md"), "README.md").blocks().stream()
            .filter(b -> b.python() && b.text().contains("from pinshard.torch import PinshardDataset")
                && b.text().contains("for epoch in range(3)"))
            .findFirst().orElseThrow(() -> new AssertionError("README.md has no PyTorch training loop")).text();
    }

    /** A command in dir with HOME there, the checkout named for the build (PINSHARD_REPO) and nothing else of it. */
    private Launcher.Result run(Path dir, String... command) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
        environment(builder);
        // The wheel's build makes a runtime when the jar is new (jdeps, jlink: minutes on a loaded 2-core machine).
        return Launcher.run(builder, temp.resolve("logs"), command[0].endsWith("build-wheel.sh") ? 900 : 120);
    }

    private void environment(ProcessBuilder builder) throws IOException {
        Map<String, String> env = builder.environment();
        env.put("HOME", Files.createDirectories(temp.resolve("home")).toString());
        env.put("PINSHARD_REPO", Launcher.repo().toString());
        env.put("PIP_NO_CACHE_DIR", "1");
        env.remove("PINSHARD_COMMAND");
        env.remove("PYTHONPATH");
        env.remove("XDG_CACHE_HOME");
        env.remove("JAVA_HOME");
        // The venv's commands see no java: its bin/ alone (a venv's python and scripts need nothing else). The
        // build script, which needs the JDK and Maven, keeps the test's PATH and JAVA_HOME.
        if (!builder.command().get(0).endsWith("build-wheel.sh")) {
            env.put("PATH", temp.resolve("venv/bin").toString());
        } else if (System.getenv("JAVA_HOME") != null) {
            env.put("JAVA_HOME", System.getenv("JAVA_HOME"));
        }
    }
}
