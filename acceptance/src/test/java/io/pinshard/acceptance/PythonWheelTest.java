package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The wheel as a PyTorch user meets it: built from this checkout ({@code pip wheel --no-build-isolation}, from a
 * copy of python/ so the checkout gets no build folders), installed with pip into a fresh virtual environment
 * (system site packages, for Debian's torch; no index), then only the venv's {@code pinshard} and {@code python}
 * are used, outside the checkout: {@code --version}, {@code convert} of a tiny ImageFolder tree, and
 * wheel_training.py (PinshardDataset's dtype, NCHW shape, normalisation against the uint8 batch, len(), a
 * state_dict round trip mid-epoch, a training loop), and wheel_ddp.py on two ranks under torchrun (gloo): disjoint samples whose
 * union is the epoch.
 */
@org.junit.jupiter.api.Tag("process")
class PythonWheelTest {
    private static final Path PYTHON = Path.of("/usr/bin/python3");

    @TempDir
    Path temp;

    @Test
    void aFreshVenvWithOnlyTheWheelConvertsAndTrains() throws Exception {
        PythonModules.assumeUsable(PYTHON);
        assumeTrue(run(temp, PYTHON.toString(), "-c", "import setuptools, wheel, pip, venv").status() == 0,
            PYTHON + " cannot build wheels: apt-get install python3-setuptools python3-wheel python3-pip python3-venv");
        Path source = copyPackageSources(temp.resolve("src"));
        Path dist = temp.resolve("dist");
        Launcher.Result wheel = run(temp, PYTHON.toString(), "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
            "--no-index", "-w", dist.toString(), source.toString());
        assertEquals(0, wheel.status(), wheel.toString());
        Path built;
        try (Stream<Path> files = Files.list(dist)) {
            built = files.filter(p -> p.getFileName().toString().matches("pinshard-.*\\.whl")).findFirst()
                .orElseThrow();
        }
        Path venv = temp.resolve("venv");
        Launcher.Result created = run(temp, PYTHON.toString(), "-m", "venv", "--system-site-packages", venv.toString());
        assertEquals(0, created.status(), created.toString());
        Launcher.Result install = run(temp, venv.resolve("bin/pip").toString(), "install", "--no-index", "--no-deps",
            built.toString());
        assertEquals(0, install.status(), install.toString());

        Launcher.Result version = run(temp, venv.resolve("bin/pinshard").toString(), "--version");
        assertEquals(0, version.status(), version.toString());
        assertTrue(version.stdout().startsWith("pinshard 0.1.0"), version.toString());
        assertTrue(version.stderr().isEmpty(), "the incubator notice is dropped, nothing else is said:\n" + version);

        Path photos = ImageFolders.classFolders(temp.resolve("photos"), 8, "cat", "dog", "fox");
        Path dataset = temp.resolve("data");
        Launcher.Result convert = run(temp, venv.resolve("bin/pinshard").toString(), "convert", photos.toString(), "-o",
            dataset.toString(), "--progress", "none");
        assertEquals(0, convert.status(), convert.toString());

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
        // otherwise fails before starting a rank. Rendezvous on a free loopback port (--standalone always takes 29400).
        Path torchrunLogs = Files.createDirectories(temp.resolve("logs/torchrun"));
        Launcher.Result ddp = run(temp, venv.resolve("bin/python").toString(), "-m", "torch.distributed.run",
            "--nnodes=1", "--rdzv_backend=c10d", "--rdzv_endpoint=localhost:0", "--nproc_per_node=2",
            "--redirects", "2", "--tee", "1", "--log_dir",
            torchrunLogs.toString(), Launcher.repo().resolve("acceptance/src/test/python/wheel_ddp.py").toString(),
            dataset.toString());
        System.out.println(ddp.stdout());
        assertEquals(0, ddp.status(), ddp.toString());
        assertTrue(ddp.stdout().contains("disjoint, union = the epoch of 24"), ddp.toString());
    }

    /** python/ less its tests and any build output, into target. */
    private static Path copyPackageSources(Path target) throws IOException {
        Path python = Launcher.repo().resolve("python");
        for (String file : List.of("pyproject.toml", "setup.py", "setup.cfg", "README-package.md")) {
            Files.createDirectories(target);
            Files.copy(python.resolve(file), target.resolve(file));
        }
        Path pkg = Files.createDirectories(target.resolve("pinshard"));
        try (Stream<Path> files = Files.list(python.resolve("pinshard"))) {
            for (Path file : files.filter(p -> p.toString().endsWith(".py") || p.endsWith("py.typed")).toList()) {
                Files.copy(file, pkg.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return target;
    }

    /** A command in dir with HOME there, the checkout named for the build (PINSHARD_REPO) and nothing else of it. */
    private Launcher.Result run(Path dir, String... command) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
        environment(builder);
        return Launcher.run(builder, temp.resolve("logs"), 120);
    }

    private void environment(ProcessBuilder builder) throws IOException {
        Map<String, String> env = builder.environment();
        env.put("HOME", Files.createDirectories(temp.resolve("home")).toString());
        env.put("PINSHARD_REPO", Launcher.repo().toString());
        env.put("PIP_NO_CACHE_DIR", "1");
        env.remove("PINSHARD_COMMAND");
        env.remove("PYTHONPATH");
        env.remove("XDG_CACHE_HOME");
    }
}
