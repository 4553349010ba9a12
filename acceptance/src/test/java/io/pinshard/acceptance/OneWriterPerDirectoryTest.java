package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.DatasetWriteLock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One writer per dataset directory, through {@code ./pinshard}: a second convert, or a merge, into a directory a
 * convert is writing is refused at once with exit 2, naming the directory and the first one's PID; a convert killed
 * with SIGKILL leaves its lock file, and the same command run again takes it over, resumes and writes the bytes of an
 * uninterrupted run.
 */
@org.junit.jupiter.api.Tag("process")
class OneWriterPerDirectoryTest {
    /** Slow commits (the converter's test hook) so that the first convert is still running when the others start. */
    private static final String SLOW = "-Dpinshard.convert.testCommitDelayMillis=400";

    @TempDir
    Path temp;
    private Path input;
    private Process first;

    @BeforeEach
    void images() throws IOException {
        input = ImageFolders.classFolders(temp.resolve("in"), 8, "a", "b"); // 16 records: 6.4 s with SLOW
    }

    @AfterEach
    void stopFirst() throws InterruptedException {
        if (first != null && first.isAlive()) {
            first.destroyForcibly();
            first.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private Launcher.Result pinshard(String... args) throws Exception {
        return Launcher.run(Launcher.pinshard(temp, args), temp.resolve("logs"), 120);
    }

    private String[] convert(Path output, String... more) {
        List<String> args = new ArrayList<>(List.of("convert", input.toString(), "-o", output.toString(),
            "--shard-size", "8KiB", "--workers", "1", "--progress", "none"));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    /** Starts the slow convert into {@code output} and waits until it holds the directory's lock. */
    private Process startSlowConvert(Path output) throws Exception {
        ProcessBuilder builder = Launcher.pinshard(temp, convert(output));
        builder.environment().put("PINSHARD_JAVA_OPTS", SLOW);
        Files.createDirectories(temp.resolve("logs"));
        first = builder.redirectErrorStream(true).redirectOutput(temp.resolve("logs/first.log").toFile()).start();
        Path lock = output.resolve(DatasetWriteLock.FILE_NAME);
        // The launcher execs the JVM: the PID held here is the one the lock file names.
        assertTrue(Processes.await(() -> holds(lock, first.pid()), 60), "the first convert took the lock");
        return first;
    }

    private static boolean holds(Path lock, long pid) {
        try {
            return Files.readString(lock).contains("pid=" + pid + "\n");
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void aSecondConvertAndAMergeIntoADirectoryBeingConvertedAreRefusedAtOnce() throws Exception {
        Path parts = temp.resolve("parts");
        for (int i = 0; i < 2; i++) {
            Launcher.Result part = pinshard(convert(parts.resolve("p" + i), "--part", i + "/2"));
            assertEquals(0, part.status(), part.toString());
        }
        Path out = temp.resolve("pets");
        Path lock = out.resolve(DatasetWriteLock.FILE_NAME);
        startSlowConvert(out);
        String holder = "pinshard convert (pid " + first.pid() + ") is writing " + out;

        Launcher.Result second = pinshard(convert(out));
        assertTrue(first.isAlive(), "refused while the first still runs, not after waiting for it");
        assertEquals(2, second.status(), second.toString());
        assertTrue(second.stderr().contains(holder), second.toString());
        assertTrue(second.stderr().contains("it holds the lock file " + lock), second.toString());
        assertTrue(second.stderr().contains("command line: ") && second.stderr().contains("convert " + input + " -o "
            + out), "the holder's command line: " + second);

        Launcher.Result merge = pinshard("merge", parts.resolve("p0").toString(), parts.resolve("p1").toString(),
            "-o", out.toString());
        assertTrue(first.isAlive(), "refused while the first still runs");
        assertEquals(2, merge.status(), merge.toString());
        assertTrue(merge.stderr().contains("pinshard merge: " + holder), merge.toString());

        assertTrue(first.waitFor(120, TimeUnit.SECONDS), "the first convert ends");
        assertEquals(0, first.exitValue(), Files.readString(temp.resolve("logs/first.log")));
        assertFalse(Files.exists(lock), "a writer that ends removes its lock file");
        Launcher.Result verify = pinshard("verify", out.toString());
        assertEquals(0, verify.status(), verify.toString());
        assertTrue(verify.stdout().contains(out + ": intact"), verify.toString());
        assertFalse(Processes.names(out).stream().anyMatch(name -> name.startsWith("part-")), "no merged shard in it");
    }

    @Test
    void aConvertKilledWithSigkillLeavesItsLockAndTheSameCommandTakesItAndResumesToTheSameBytes() throws Exception {
        Path reference = temp.resolve("reference");
        Launcher.Result uninterrupted = pinshard(convert(reference));
        assertEquals(0, uninterrupted.status(), uninterrupted.toString());

        Path out = temp.resolve("killed");
        Path lock = out.resolve(DatasetWriteLock.FILE_NAME);
        startSlowConvert(out);
        long killed = first.pid();
        // Shard 1 renamed into place: shard 0 is journalled (its journal line went before shard 1 began).
        assertTrue(Processes.await(() -> Files.exists(out.resolve("shard-00001.pinshard")), 60), "a shard is journalled");
        first.destroyForcibly(); // SIGKILL
        assertTrue(first.waitFor(30, TimeUnit.SECONDS));
        assertTrue(holds(lock, killed), "the killed writer's lock file stays behind");

        Launcher.Result rerun = pinshard(convert(out));
        assertEquals(0, rerun.status(), rerun.toString());
        assertTrue(rerun.stdout().contains("resumed after "), rerun.toString());
        assertFalse(Files.exists(lock), "taken over, then removed at the end");
        assertEquals(Processes.names(reference), Processes.names(out));
        for (String name : Processes.names(reference)) {
            assertEquals(-1L, Files.mismatch(reference.resolve(name), out.resolve(name)), name + " differs");
        }
    }
}
