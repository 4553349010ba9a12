package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.fixtures.ChildJvm;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.DatasetWriteLock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a converting child JVM at several points (an exact halt after N commits or N shards, which
 * skips shutdown hooks and finally blocks just as kill -9 does, and a real SIGKILL mid-run), checks
 * that nothing left behind passes for a dataset, reruns the same command and requires the result
 * to be byte-identical to an uninterrupted run.
 */
@org.junit.jupiter.api.Tag("process")
class ConvertResumeTest {
    private static final String[] OPTIONS = {"--shorter-side", "24", "--shard-size", "8KiB", "--progress", "none"};

    @TempDir
    Path tmp;
    private Path input;
    private Path reference;

    @BeforeEach
    void uninterruptedRun() throws IOException {
        input = ConvertFixtures.imageFolder(tmp.resolve("in"));
        reference = tmp.resolve("reference");
        assertEquals(0, runInProcess(reference, "2").exitCode());
    }

    private CommandTestSupport.Result runInProcess(Path output, String workers) {
        List<String> args = new ArrayList<>(List.of("convert", input.toString(), "-o", output.toString(), "--workers", workers));
        args.addAll(List.of(OPTIONS));
        return CommandTestSupport.run(args.toArray(String[]::new));
    }

    private Process startChild(Path output, String... properties) throws IOException {
        List<String> options = new ArrayList<>(ChildJvm.pinshardFlags());
        options.addAll(List.of(properties));
        List<String> command = new ArrayList<>(ChildJvm.command(options, PinshardCommand.class,
            "convert", input.toString(), "-o", output.toString(), "--workers", "2"));
        command.addAll(List.of(OPTIONS));
        return new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(tmp.resolve("child-" + output.getFileName() + ".log").toFile()).start();
    }

    private void assertNotADatasetThenResume(Path output, String what) throws IOException {
        assertFalse(Files.exists(output.resolve(DatasetManifest.FILE_NAME)), what + ": no manifest after a kill");
        assertTrue(Files.exists(output.resolve(DatasetWriteLock.FILE_NAME)), what + ": the killed writer's lock file stays"
            + " (the rerun takes it over; the same file set as the reference below shows that it went at the end)");
        assertEquals(PinshardCommand.EXIT_USAGE, CommandTestSupport.run("verify", output.toString()).exitCode(),
            what + ": an interrupted directory is not a dataset");
        CommandTestSupport.Result rerun = runInProcess(output, "1");
        assertEquals(0, rerun.exitCode(), what + ": " + rerun.err());
        ConvertFixtures.assertSameFiles(reference, output);
        ConvertFixtures.assertVerifies(output);
    }

    @Test
    void haltAtSeveralPointsThenRerunGivesTheSameBytes() throws Exception {
        int inputs = ConvertFixtures.GOOD + ConvertFixtures.BAD;
        // (Killing while the first shard is still a temporary file is the first SIGKILL round below.)
        String[][] points = {
            {"-Dpinshard.convert.testHaltAfterCommits=9"},            // some shards finished and journalled
            {"-Dpinshard.convert.testHaltAfterCommits=" + inputs},    // everything committed, last shard and manifest not written
            {"-Dpinshard.convert.testHaltAfterShards=2"},             // shard renamed into place, journal not yet updated
        };
        for (String[] point : points) {
            Path output = tmp.resolve("halt" + point[0].replaceAll("\\D", "") + point[0].length());
            Process child = startChild(output, point);
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child finished");
            assertEquals(137, child.exitValue(), point[0] + ": " + Files.readString(tmp.resolve("child-" + output.getFileName() + ".log")));
            assertNotADatasetThenResume(output, point[0]);
        }
    }

    @Test
    void sigkillMidRunThenRerunGivesTheSameBytes() throws Exception {
        // Slow commits down so the kill lands mid-run: once while the first shard is a temporary file,
        // once after the journal records a finished shard.
        List<Predicate<Path>> killWhen = List.of(
            dir -> listing(dir).stream().anyMatch(name -> name.endsWith(".tmp")),
            dir -> listing(dir).contains("convert-journal.json"));
        int round = 0;
        for (Predicate<Path> condition : killWhen) {
            Path output = tmp.resolve("kill" + round++);
            Process child = startChild(output, "-Dpinshard.convert.testCommitDelayMillis=150");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!condition.test(output) && child.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            assertTrue(child.isAlive(), "child still running when the kill condition held");
            child.destroyForcibly(); // SIGKILL on Linux
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            assertEquals(137, child.exitValue());
            assertNotADatasetThenResume(output, "SIGKILL round " + round);
        }
    }

    private static List<String> listing(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
