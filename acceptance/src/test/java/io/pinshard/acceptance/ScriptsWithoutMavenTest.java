package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.awt.image.WritableRaster;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The scripts the docs name, run as a user runs them after {@code mvn verify}: with a home of their own and a PATH
 * whose {@code mvn} fails loudly. So they must use what the build made (the modules' target/test.classpath, written
 * by verify itself) and call no Maven, neither a plugin that verify did not fetch nor a rebuild. The reactor builds
 * examples, torch, spark, s3 and reader before this module, so their outputs are fresh.
 */
@org.junit.jupiter.api.Tag("process")
class ScriptsWithoutMavenTest {
    private static final String STUB_MARK = "mvn stub:";

    @TempDir
    Path temp;

    private Path home;
    private Path stubBin;

    @BeforeEach
    void stubMaven() throws IOException {
        home = Files.createDirectories(temp.resolve("home"));
        stubBin = Files.createDirectories(temp.resolve("bin"));
        Path mvn = stubBin.resolve("mvn");
        Files.writeString(mvn, "#!/bin/sh\necho \"" + STUB_MARK + " a script called Maven after the build: mvn $*\" >&2\n"
            + "exit 97\n");
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /** {@code repo/script ARGS} with HOME, XDG_CACHE_HOME unset and the stub first on the PATH. */
    private ProcessBuilder script(String script, Map<String, String> extraEnv, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Launcher.repo().resolve(script).toString());
        command.addAll(Arrays.asList(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(Launcher.repo().toFile());
        Map<String, String> env = builder.environment();
        env.put("HOME", home.toString());
        env.remove("XDG_CACHE_HOME");
        env.put("PATH", stubBin + File.pathSeparator + System.getenv("PATH"));
        env.putAll(extraEnv);
        return builder;
    }

    private static void assertNoMaven(Launcher.Result result) {
        assertFalse(result.stderr().contains(STUB_MARK), "called Maven: " + result);
        assertEquals(0, result.status(), result.toString());
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "scripts/module-classpath.sh,examples,examples/target/classes,pytorch-2.10.0-1.5.13-linux-x86_64.jar",
        "scripts/module-classpath.sh,spark,spark/target/classes,spark-sql_2.13-",
        "scripts/module-classpath.sh,--tests s3,s3/target/test-classes,s3proxy-",
        "scripts/module-classpath.sh,--tests loader,loader/target/test-classes,pinshard-writer-",
        "scripts/module-classpath.sh,cuda-bridge,cuda-bridge/target/classes,cuda-13.1-9.19-1.5.13-linux-x86_64.jar"})
    void classpathHelpersPrintWhatTheBuildWroteWithoutMaven(String helper, String args, String classes, String jar)
        throws Exception {
        String[] helperArgs = args == null ? new String[0] : args.split(" ");
        Launcher.Result result = Launcher.run(script(helper, Map.of(), helperArgs), temp.resolve("logs"), 60);
        assertNoMaven(result);
        assertFalse(result.stderr().contains("building"), "the reactor built the module already: " + result);
        List<String> entries = List.of(result.stdout().strip().split(File.pathSeparator));
        assertTrue(entries.contains(Launcher.repo().resolve(classes).toString()), classes + " in " + entries);
        assertTrue(entries.stream().anyMatch(e -> Path.of(e).getFileName().toString().startsWith(jar)),
            jar + " in " + entries);
        for (String entry : entries) {
            assertTrue(Files.exists(Path.of(entry)), "the class path names a missing " + entry);
        }
    }

    /**
     * The README's one command, its smallest real run: fetch-fashion-mnist.sh converts a 10-class PNG tree laid out
     * as it lays out Fashion-MNIST (260 train, 50 test images: it fetches only when no tree is there) through
     * ./pinshard, then one epoch of two steps of 128 trains, scores the 50 and writes the chart.
     */
    /** scripts/spark-jars.sh: a folder of jar files only (no folder for a class-data archive to trip on). */
    @Test
    void sparkJarsFillsAFolderWithJarsOnlyWithoutMaven() throws Exception {
        Path jars = temp.resolve("jars");
        Launcher.Result result = Launcher.run(script("scripts/spark-jars.sh", Map.of(), jars.toString()),
            temp.resolve("logs"), 120);
        assertNoMaven(result);
        List<String> names;
        try (var files = Files.list(jars)) {
            names = files.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertTrue(names.stream().allMatch(n -> n.endsWith(".jar")), "jar files only: " + names);
        assertTrue(names.stream().anyMatch(n -> n.startsWith("pinshard-spark-")), "the spark module's jar: " + names);
        assertTrue(names.stream().anyMatch(n -> n.startsWith("pinshard-writer-")), "the pinshard jars: " + names);
        assertTrue(names.stream().anyMatch(n -> n.startsWith("spark-sql_2.13-")), "Spark's: " + names);
    }

    @Test
    void trainFashionMnistRunsWithoutMaven() throws Exception {
        Path data = temp.resolve("fashion-mnist");
        writePngTree(data.resolve("png/train"), 26, 1);
        writePngTree(data.resolve("png/test"), 5, 2);
        Files.createFile(data.resolve("png/.complete"));
        Path out = temp.resolve("run");
        ProcessBuilder train = script("scripts/train-fashion-mnist.sh", Map.of("PINSHARD_FASHION_MNIST", data.toString()),
            "--epochs", "1", "--steps-per-epoch", "2", "--print-every", "1", "--out", out.toString());
        Launcher.Result result = Launcher.run(train, temp.resolve("logs"), 180);
        assertNoMaven(result);
        Matcher last = Pattern.compile("final: test top-1 (\\d+\\.\\d\\d) % \\((\\d+) images\\) after 1 epochs, 2 steps")
            .matcher(result.stdout());
        assertTrue(last.find(), "the accuracy line: " + result);
        assertEquals("50", last.group(2), result.toString());
        double accuracy = Double.parseDouble(last.group(1));
        assertTrue(accuracy >= 0 && accuracy <= 100, result.toString());
        Path chart = out.resolve("training.png");
        assertTrue(result.stdout().contains("chart: " + chart), result.toString());
        BufferedImage image = ImageIO.read(chart.toFile());
        assertTrue(image != null && image.getWidth() > 100 && image.getHeight() > 100, "a PNG chart at " + chart);
        assertEquals(2, Files.readAllLines(out.resolve("steps.log")).stream().filter(l -> l.startsWith("step")).count(),
            "two steps logged: " + Files.readString(out.resolve("steps.log")));
        assertTrue(Files.exists(data.resolve("train/manifest.json")) && Files.exists(data.resolve(".complete")),
            "fetch-fashion-mnist.sh converted the tree");
    }

    /**
     * prepare-bench-data.sh (the benchmarks' datasets, made with reader's test classes) over three photos of its
     * own (fetch-photos.sh fetches only when no photo folder is there): raw, lz4, jpeg and yuv420 datasets and the JPEG
     * tree.
     */
    @Test
    void prepareBenchDataRunsWithoutMaven() throws Exception {
        Path photos = Files.createDirectories(temp.resolve("photos/theme"));
        for (int p = 0; p < 3; p++) {
            BufferedImage photo = new BufferedImage(400, 360, BufferedImage.TYPE_INT_RGB);
            for (int y = 0; y < 360; y++) {
                for (int x = 0; x < 400; x++) {
                    photo.setRGB(x, y, (x * 7 + p * 50) % 256 << 16 | (y * 3) % 256 << 8 | (x + y) % 256);
                }
            }
            ImageIO.write(photo, "png", photos.resolve("p" + p + ".png").toFile());
        }
        Files.createFile(temp.resolve("photos/.complete"));
        Path data = temp.resolve("bench");
        ProcessBuilder prepare = script("scripts/prepare-bench-data.sh", Map.of("PINSHARD_PHOTOS",
            temp.resolve("photos").toString(), "PINSHARD_BENCH_DATA", data.toString()), "1");
        Launcher.Result result = Launcher.run(prepare, temp.resolve("logs"), 120);
        assertNoMaven(result);
        assertEquals(data.toString(), result.stdout().strip(), result.toString());
        for (String made : List.of("raw/manifest.json", "lz4/manifest.json", "jpeg/manifest.json", "yuv420/manifest.json",
                "jpeg-files", ".complete")) {
            assertTrue(Files.exists(data.resolve(made)), made + " in " + data + ": " + result);
        }
    }

    /** DIR/k-classK/n.png, 28 x 28 grey: a bright band whose row is the class, over noise. */
    private static void writePngTree(Path dir, int perClass, long seed) throws IOException {
        SplittableRandom random = new SplittableRandom(seed);
        for (int k = 0; k < 10; k++) {
            Path classDir = Files.createDirectories(dir.resolve(k + "-class" + k));
            for (int n = 0; n < perClass; n++) {
                BufferedImage image = new BufferedImage(28, 28, BufferedImage.TYPE_BYTE_GRAY);
                WritableRaster raster = image.getRaster();
                for (int y = 0; y < 28; y++) {
                    for (int x = 0; x < 28; x++) {
                        boolean band = y >= 2 * k + 2 && y < 2 * k + 6;
                        raster.setSample(x, y, 0, band ? 200 + random.nextInt(56) : random.nextInt(60));
                    }
                }
                ImageIO.write(image, "png", classDir.resolve(String.format("%05d.png", n)).toFile());
            }
        }
    }
}
