package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.testkit.S3TestServer;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documentation as the acceptance test: every fenced shell block ({@code bash}, {@code sh}, {@code shell},
 * {@code console}) and Python block of README.md and docs/*.md runs exactly as written, or carries the visible
 * marker {@code *Not run by the docs test: REASON*} right above it (see {@link DocBlocks}).
 *
 * <p>How a block runs:
 * <ul>
 *   <li>a shell block with {@code bash -euo pipefail} in the repository root (a {@code console} block: its
 *       {@code $ } lines); a Python block with {@code /usr/bin/python3} in the repository root, when that Python has
 *       torch and numpy (else every Python block is counted as skipped, and the reason printed);</li>
 *   <li>HOME (and Java's {@code user.home}) is a folder of the test's own holding {@code ~/photos}: a tiny
 *       ImageFolder tree (classes {@code cat}, {@code dog}, {@code fish} of small generated JPEG and PNG images,
 *       plus a {@code photo} class of the three smallest real photographs in the developer's
 *       {@code ~/.cache/pinshard/photos} when they are there, which {@code PINSHARD_PHOTOS} also points the demo
 *       at); its {@code ~/.cache} is shared by every file's blocks (the CDS archives);</li>
 *   <li>the absolute paths {@code /data/...}, {@code /scratch/...} and {@code /mnt/...} in a block's text are
 *       replaced by the same paths under the test's folder ({@code /data/pets} becomes {@code TMP/data/pets});</li>
 *   <li>{@code pinshard} on the PATH is a symbolic link to this checkout's {@code ./pinshard}, as the README
 *       installs it, and {@code PYTHONPATH} is this checkout's {@code python/}, where the wheel's package comes
 *       from (PythonWheelTest installs the wheel itself); a block that names {@code ~/venv/} gets that venv as the
 *       README makes it, standing in for the wheel's: {@code /usr/bin/python3 -m venv --system-site-packages}, the
 *       checkout's {@code python/} on its path (a .pth file) and {@code bin/pinshard} the launcher;</li>
 *   <li>when a block names {@code s3://}, an s3proxy on loopback ({@link S3TestServer}) serves it:
 *       {@code AWS_ENDPOINT_URL}, {@code AWS_REGION} and {@code AWS_ACCESS_KEY_ID}/{@code AWS_SECRET_ACCESS_KEY}
 *       point at it, and every bucket the blocks name (such as {@code bucket}) exists, empty (path-style
 *       addressing needs no setting: the SDK uses it for an IP-address endpoint such as 127.0.0.1);</li>
 *   <li>the blocks of one file run in order and share that file's HOME and folders, so a convert block's output
 *       is the next block's input; each file starts from a fresh copy of {@code ~/photos};</li>
 *   <li>each block has 90 s ({@code -Dpinshard.docsTest.blockTimeout}); a block that runs longer is killed with its child
 *       processes and fails with its text and output.</li>
 * </ul>
 * The test fails on a runnable block that fails, on a fence without a language, and on a marker without a reason;
 * it prints how many blocks ran, were marked (with the reasons) and were skipped, and checks they add up to every
 * shell and Python block.
 */
@org.junit.jupiter.api.Tag("process")
class DocsAcceptanceTest {
    /** Seconds one block may run ({@code -Dpinshard.docsTest.blockTimeout=S} for a slow machine). */
    static final int BLOCK_TIMEOUT_SECONDS = Integer.getInteger("pinshard.docsTest.blockTimeout", 90);
    private static final Pattern MAPPED_PATH = Pattern.compile("(?<![\\w.~/-])/(data|scratch|mnt)(?=[/\\s\"'),;]|$)");
    private static final Pattern BUCKET = Pattern.compile("s3a?://([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])");
    private static final String PYTHON = "/usr/bin/python3";

    @TempDir
    Path temp;

    /** The class-data archive dumps the commands started in the test's home end before the folder is removed. */
    @AfterEach
    void endDetachedArchiveDumps() throws InterruptedException {
        Launcher.endDetachedProcessesUnder(temp);
    }

    @Test
    void everyShellAndPythonBlockRunsOrSaysWhyItCannot() throws Exception {
        long started = System.nanoTime();
        Path repo = Launcher.repo();
        List<Path> files = documentationFiles(repo);
        List<String> problems = new ArrayList<>();
        List<List<DocBlocks.Block>> blocksPerFile = new ArrayList<>();
        for (Path file : files) {
            DocBlocks.Parsed parsed = DocBlocks.read(file, repo.relativize(file).toString());
            problems.addAll(parsed.problems());
            blocksPerFile.add(parsed.blocks());
        }
        List<DocBlocks.Block> runnable = blocksPerFile.stream().flatMap(List::stream)
            .filter(DocBlocks.Block::runnable).toList();
        String pythonMissing = pythonWithoutTorch();

        Path photos = writePhotos(temp.resolve("photos"));
        Path cache = Files.createDirectories(temp.resolve("cache"));
        Path bin = writePinshardOnPath(temp.resolve("bin"), repo);

        int ran = 0;
        int skipped = 0;
        List<String> marked = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        S3TestServer s3 = null;
        try {
            Set<String> buckets = bucketsNamed(runnable);
            if (!buckets.isEmpty()) {
                s3 = S3TestServer.start();
                for (String bucket : buckets) {
                    s3.blobStore().createContainerInLocation(null, bucket);
                }
            }
            for (List<DocBlocks.Block> blocks : blocksPerFile) {
                Workspace workspace = null;
                for (DocBlocks.Block block : blocks) {
                    if (!block.runnable()) {
                        continue;
                    }
                    if (block.marker() != null) {
                        marked.add(block.where() + ": " + block.marker().reason());
                        continue;
                    }
                    if (block.python() && pythonMissing != null) {
                        skipped++;
                        System.out.println("docs test: skipped " + block.where() + ": " + pythonMissing);
                        continue;
                    }
                    if (workspace == null) {
                        workspace = Workspace.create(temp.resolve("run").resolve(safeName(block.file())), photos, cache);
                    }
                    ran++;
                    String failure = run(block, workspace, repo, bin, s3);
                    if (failure != null) {
                        failures.add(failure);
                    }
                }
            }
        } finally {
            if (s3 != null) {
                s3.close();
            }
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
        System.out.println("docs test: " + ran + " blocks ran, " + marked.size() + " marked, " + skipped + " skipped"
            + (skipped > 0 ? " (" + pythonMissing + ")" : "") + ", in " + seconds + " s; marked (reasons):");
        marked.forEach(reason -> System.out.println("  " + reason));

        assertTrue(problems.isEmpty(), "the documentation breaks the docs test's rules:\n" + String.join("\n", problems));
        assertTrue(failures.isEmpty(), failures.size() + " documentation block(s) failed:\n\n"
            + String.join("\n\n", failures));
        assertEquals(runnable.size(), ran + marked.size() + skipped, "every shell and Python block ran, was marked or "
            + "was skipped");
        assertTrue(ran > 0, "no block ran");
    }

    @Test
    void onlyAbsolutePathsUnderDataScratchAndMntMoveIntoTheWorkspace() {
        Workspace workspace = new Workspace(Path.of("/tmp/ws"), Path.of("/tmp/ws/home"));
        assertEquals("pinshard convert ~/photos -o /tmp/ws/data/pets && ls /tmp/ws/scratch /tmp/ws/mnt/shards",
            workspace.mapPaths("pinshard convert ~/photos -o /data/pets && ls /scratch /mnt/shards"));
        assertEquals("open(\"/tmp/ws/data/pets/manifest.json\")", workspace.mapPaths("open(\"/data/pets/manifest.json\")"));
        for (String unchanged : List.of("s3://bucket/data/pets", "~/data/x", "./data/x", "/dev/shm/pets.ring",
                "/database", "hdfs://nn/data/train", "/tmp/data")) {
            assertEquals(unchanged, workspace.mapPaths(unchanged));
        }
    }

    /**
     * README.md, then docs/*.md in name order; only those {@code -Dpinshard.docsTest.only} names (file names,
     * comma-separated: a developer's run of the pages they changed) when it is set.
     */
    static List<Path> documentationFiles(Path repo) throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(repo.resolve("README.md"));
        try (Stream<Path> docs = Files.list(repo.resolve("docs"))) {
            docs.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().forEach(files::add);
        }
        String only = System.getProperty("pinshard.docsTest.only", "");
        if (!only.isBlank()) {
            List<String> names = List.of(only.split(","));
            files.removeIf(file -> !names.contains(file.getFileName().toString()));
        }
        return files;
    }

    /** A file's folders: HOME (with its own copy of ~/photos, the shared ~/.cache) and the mapped roots. */
    record Workspace(Path root, Path home) {
        static Workspace create(Path root, Path photos, Path cache) throws IOException {
            Path home = Files.createDirectories(root.resolve("home"));
            copyTree(photos, home.resolve("photos"));
            Files.createSymbolicLink(home.resolve(".cache"), cache);
            for (String mapped : List.of("data", "scratch", "mnt")) {
                Files.createDirectories(root.resolve(mapped));
            }
            return new Workspace(root, home);
        }

        /** The block's text with /data, /scratch and /mnt moved under this workspace. */
        String mapPaths(String text) {
            return MAPPED_PATH.matcher(text).replaceAll(Matcher.quoteReplacement(root.toString()) + "/$1");
        }
    }

    /** Runs one block; null when it succeeded, else the failure with its text and output. */
    private String run(DocBlocks.Block block, Workspace workspace, Path repo, Path bin, S3TestServer s3)
            throws IOException, InterruptedException {
        Path logs = Files.createDirectories(workspace.root().resolve("logs"));
        String name = "block-" + block.line();
        String text = workspace.mapPaths(block.python() ? block.text() : block.script());
        Path script = logs.resolve(name + (block.python() ? ".py" : ".sh"));
        Files.writeString(script, text, StandardCharsets.UTF_8);
        Path output = logs.resolve(name + ".log");
        if (text.contains("~/venv/") && !Files.exists(workspace.home().resolve("venv"))) {
            writeVenv(workspace.home().resolve("venv"), repo);
        }
        List<String> command = block.python()
            ? List.of(PYTHON, script.toString())
            : List.of("bash", "-euo", "pipefail", script.toString());
        ProcessBuilder builder = new ProcessBuilder(command).directory(repo.toFile())
            .redirectErrorStream(true).redirectOutput(output.toFile()).redirectInput(new File("/dev/null"));
        Map<String, String> env = builder.environment();
        env.put("HOME", workspace.home().toString());
        // Java takes user.home from the password file, not from HOME: without this, the defaults under ~ that the
        // commands use (the demo's ~/.cache/pinshard/demo, the S3 cache) would be the developer's own.
        // The same for java.io.tmpdir (convert -o s3://'s default staging directory lives there): a block's state
        // stays in its workspace, so two builds at once, or the developer's own convert, never share it.
        Path tmp = workspace.home().resolve("tmp");
        Files.createDirectories(tmp);
        env.put("JAVA_TOOL_OPTIONS", "-Duser.home=" + workspace.home() + " -Djava.io.tmpdir=" + tmp);
        env.put("PATH", bin + File.pathSeparator + env.getOrDefault("PATH", "/usr/bin:/bin"));
        env.remove("XDG_CACHE_HOME");
        env.remove("PINSHARD_COMMAND");
        env.put("PYTHONPATH", repo.resolve("python").toString());  // the package, as its wheel installs it
        Path real = realPhotos();
        if (real != null && Files.isRegularFile(real.resolve(".complete"))) {
            env.put("PINSHARD_PHOTOS", real.toString());  // the demo reads the developer's fetched photos, never writes
        }
        if (s3 != null) {
            env.put("AWS_ENDPOINT_URL", s3.endpoint().toString());
            env.put("AWS_REGION", "us-east-1");
            env.put("AWS_ACCESS_KEY_ID", S3TestServer.ACCESS_KEY);
            env.put("AWS_SECRET_ACCESS_KEY", S3TestServer.SECRET_KEY);
            env.remove("AWS_PROFILE");
        }
        long started = System.nanoTime();
        Process process = builder.start();
        boolean finished = process.waitFor(BLOCK_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor();
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        String printed = tail(Files.readString(output, StandardCharsets.UTF_8), 6000);
        System.out.printf("docs test: %s %s in %.1f s%n", block.where(),
            !finished ? "TIMED OUT" : process.exitValue() == 0 ? "ran" : "FAILED (exit " + process.exitValue() + ")",
            seconds);
        if (finished && process.exitValue() == 0) {
            return null;
        }
        String how = finished ? "exited with status " + process.exitValue()
            : "ran past " + BLOCK_TIMEOUT_SECONDS + " s and was killed with its child processes (it hangs, or needs a"
                + " marker with the smaller run that covers it)";
        return block.where() + " " + how + ".\n--- the block (paths as run)\n" + text + "--- its output\n" + printed;
    }

    private static String tail(String text, int chars) {
        return text.length() <= chars ? text : "[... " + (text.length() - chars) + " chars]\n"
            + text.substring(text.length() - chars);
    }

    /** Null when /usr/bin/python3 imports torch and numpy, else why the Python blocks are skipped. */
    private static String pythonWithoutTorch() throws Exception {
        if (!Files.isExecutable(Path.of(PYTHON))) {
            return "no " + PYTHON;
        }
        List<String> missing = PythonModules.missing(Path.of(PYTHON));
        return missing.isEmpty() ? null : PYTHON + " lacks " + String.join(" and ", missing)
            + " (apt-get install python3-torch python3-numpy, as .ci/run does)";
    }

    private static Set<String> bucketsNamed(List<DocBlocks.Block> blocks) {
        Set<String> buckets = new LinkedHashSet<>();
        for (DocBlocks.Block block : blocks) {
            if (block.marker() == null) {
                Matcher m = BUCKET.matcher(block.text());
                while (m.find()) {
                    buckets.add(m.group(1));
                }
            }
        }
        return buckets;
    }

    /** {@code pinshard} on the PATH as the README installs it: a symbolic link to this checkout's launcher. */
    /** ~/venv as the README makes it, the checkout's package in place of the wheel's (see the class comment). */
    private static void writeVenv(Path venv, Path repo) throws IOException, InterruptedException {
        Process created = new ProcessBuilder(PYTHON, "-m", "venv", "--system-site-packages", "--without-pip",
            venv.toString()).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!created.waitFor(120, TimeUnit.SECONDS) || created.exitValue() != 0) {
            throw new IOException(PYTHON + " -m venv " + venv + " failed (apt-get install python3-venv)");
        }
        try (var sitePackages = Files.find(venv.resolve("lib"), 2, (p, a) -> p.endsWith("site-packages"))) {
            Path site = sitePackages.findFirst().orElseThrow(() -> new IOException("no site-packages in " + venv));
            Files.writeString(site.resolve("pinshard-checkout.pth"), repo.resolve("python") + "\n");
        }
        Files.createSymbolicLink(venv.resolve("bin/pinshard"), repo.resolve("pinshard"));
    }

    private static Path writePinshardOnPath(Path bin, Path repo) throws IOException {
        Files.createDirectories(bin);
        Files.createSymbolicLink(bin.resolve("pinshard"), repo.resolve("pinshard"));
        return bin;
    }

    /**
     * ~/photos: an ImageFolder tree of 3 classes x 4 small images (JPEG, one PNG per class, landscape and portrait
     * sizes), plus up to 3 of the developer's real photographs as a fourth class when they are cached.
     */
    static Path writePhotos(Path root) throws IOException {
        String[] classes = {"cat", "dog", "fish"};
        int[][] sizes = {{480, 360}, {360, 480}, {400, 400}, {520, 340}};
        for (int c = 0; c < classes.length; c++) {
            Path folder = Files.createDirectories(root.resolve(classes[c]));
            for (int i = 0; i < sizes.length; i++) {
                BufferedImage image = new BufferedImage(sizes[i][0], sizes[i][1], BufferedImage.TYPE_INT_RGB);
                Graphics2D g = image.createGraphics();
                g.setPaint(new java.awt.GradientPaint(0, 0, new Color(40 + 70 * c, 90, 200 - 60 * c),
                    sizes[i][0], sizes[i][1], new Color(230, 200 - 50 * i, 60 + 40 * c)));
                g.fillRect(0, 0, sizes[i][0], sizes[i][1]);
                g.setColor(Color.WHITE);
                g.fillOval(sizes[i][0] / 4, sizes[i][1] / 4, sizes[i][0] / 2, sizes[i][1] / 2);
                g.dispose();
                String format = i == 3 ? "png" : "jpg";
                if (!ImageIO.write(image, format, folder.resolve(classes[c] + "-" + i + "." + format).toFile())) {
                    throw new IOException("no ImageIO writer for " + format);
                }
            }
        }
        Path real = realPhotos();
        if (real != null) {
            Path folder = Files.createDirectories(root.resolve("photo"));
            try (Stream<Path> files = Files.walk(real)) {
                List<Path> smallest = files.filter(Files::isRegularFile)
                    .filter(p -> p.getFileName().toString().matches("(?i).*\\.(jpe?g|png)"))
                    .sorted(java.util.Comparator.comparingLong(DocsAcceptanceTest::size).thenComparing(Path::toString))
                    .limit(3).toList();
                for (int i = 0; i < smallest.size(); i++) {
                    Path photo = smallest.get(i);
                    Files.copy(photo, folder.resolve("photo-" + i + "-" + photo.getFileName()));
                }
            }
        }
        return root;
    }

    /** The developer's cached photographs (scripts/fetch-photos.sh), or null. */
    private static Path realPhotos() {
        Path photos = Path.of(System.getProperty("user.home"), ".cache", "pinshard", "photos");
        return Files.isDirectory(photos) ? photos : null;
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return Long.MAX_VALUE;
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : paths.toList()) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target);
                }
            }
        }
    }

    private static String safeName(String file) {
        return file.replaceAll("[^A-Za-z0-9.-]", "_");
    }
}
