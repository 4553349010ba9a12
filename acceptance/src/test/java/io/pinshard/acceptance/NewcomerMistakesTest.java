package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.testkit.S3TestServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mistakes a newcomer makes with {@code ./pinshard}, typed as they type them: each ends with one line that names
 * the path and says what is wrong with it and what to do (exit 2 for usage, 1 for a destination refused), never a
 * Java stack trace, and nothing is written.
 */
@org.junit.jupiter.api.Tag("process")
class NewcomerMistakesTest {
    @TempDir
    Path temp;

    private Launcher.Result pinshard(String... args) throws Exception {
        return Launcher.run(Launcher.pinshard(temp, args), temp.resolve("logs"), 120);
    }

    /** Exit 2, stderr naming what, no stack trace. */
    private static void assertUsageError(Launcher.Result result, String expected) {
        assertRefused(result, 2, expected);
    }

    private static void assertRefused(Launcher.Result result, int status, String expected) {
        assertEquals(status, result.status(), result.toString());
        assertTrue(result.stderr().contains(expected), "says \"" + expected + "\":\n" + result);
        assertFalse(result.stderr().contains("\tat ") || result.stderr().contains("Exception"),
            "no stack trace, no exception class:\n" + result);
    }

    @Test
    void aDatasetPathThatDoesNotExistIsSaidToNotExistByEveryCommandThatReadsOne() throws Exception {
        String missing = temp.resolve("no-such-dataset").toString();
        List<String[]> commands = List.of(new String[] {"inspect", missing}, new String[] {"verify", missing},
            new String[] {"bench", missing, "--seconds", "0.1"}, new String[] {"serve", missing},
            new String[] {"preview", missing, "--out", temp.resolve("sheet.png").toString()},
            new String[] {"push", missing, "s3://bucket/set"});
        for (String[] command : commands) {
            assertUsageError(pinshard(command), missing + ": does not exist");
        }
    }

    @Test
    void aFileGivenForADatasetIsSaidToBeOneAndAShardFileNamesItsDataset() throws Exception {
        Path notes = Files.writeString(temp.resolve("notes.txt"), "not a dataset");
        assertUsageError(pinshard("inspect", notes.toString()), notes + ": is a file, not a dataset directory");
        assertUsageError(pinshard("verify", notes.toString()), notes + ": is a file, not a dataset directory");
        Path dataset = temp.resolve("data");
        Launcher.Result convert = pinshard("convert", ImageFolders.classFolders(temp.resolve("photos"), 2, "a", "b")
            .toString(), "-o", dataset.toString(), "--progress", "none");
        assertEquals(0, convert.status(), convert.toString());
        Path shard = dataset.resolve("shard-00000.pinshard");
        assertUsageError(pinshard("inspect", shard.toString()), "is a dataset's shard file, not a dataset directory:"
            + " give its dataset's directory (" + dataset + ")");
        assertUsageError(pinshard("verify", dataset.resolve("manifest.json").toString()), "is a dataset's manifest"
            + " file, not a dataset directory: give its dataset's directory (" + dataset + ")");
    }

    @Test
    void anImageFolderGivenForADatasetSaysToConvertItFirst() throws Exception {
        Path photos = ImageFolders.classFolders(temp.resolve("photos"), 1, "cat", "dog");
        for (String command : new String[] {"bench", "inspect", "serve"}) {
            assertUsageError(pinshard(command, photos.toString()), "no manifest.json in " + photos
                + ": not a pinshard dataset (or its writer did not finish) [NOT_A_DATASET]; it holds images: convert"
                + " them into a dataset first, e.g. pinshard convert " + photos + " -o DATASET_DIR");
        }
        Path empty = Files.createDirectories(temp.resolve("empty"));
        Launcher.Result notImages = pinshard("inspect", empty.toString());
        assertUsageError(notImages, "no manifest.json in " + empty);
        assertFalse(notImages.stderr().contains("holds images"), "no hint for a folder without images: " + notImages);
    }

    @Test
    void convertOfAFileItDoesNotReadOrIntoAFileSaysWhichAndWritesNothing() throws Exception {
        Path notes = Files.writeString(temp.resolve("notes.txt"), "not images");
        Path out = temp.resolve("out");
        assertUsageError(pinshard("convert", notes.toString(), "-o", out.toString()),
            "input " + notes + " is a file convert does not read: give an image folder");
        assertFalse(Files.exists(out), "nothing written");
        Path photos = ImageFolders.classFolders(temp.resolve("photos"), 1, "a");
        assertUsageError(pinshard("convert", photos.toString(), "-o", notes.toString()),
            "output " + notes + " is a file, not a directory: give -o a new or empty directory");
        assertEquals("not images", Files.readString(notes), "the file is left as it was");
    }

    @Test
    void aFlatFolderOfImagesIsRefusedSayingWhyAndWhatToDoInsteadOfWritingAnEmptyDataset() throws Exception {
        Path flat = ImageFolders.classFolders(temp.resolve("flat"), 3, "a").resolve("a"); // a-0.png ... directly in it
        Path out = temp.resolve("out");
        assertUsageError(pinshard("convert", flat.toString(), "-o", out.toString()), "input " + flat
            + ": none of its 3 input(s) can be converted, e.g. a-0.png: not inside a class folder");
        assertUsageError(pinshard("convert", flat.toString(), "-o", out.toString()), "use --labels none");
        assertFalse(Files.exists(out), "no empty dataset written");
        Launcher.Result unlabelled = pinshard("convert", flat.toString(), "-o", out.toString(), "--labels", "none",
            "--progress", "none");
        assertEquals(0, unlabelled.status(), unlabelled.toString());
        assertTrue(unlabelled.stdout().contains("written: 3"), unlabelled.toString());
    }

    @Test
    void anOutputInsideTheInputFolderIsRefusedBeforeItBecomesAClassOfItsOwnRerun() throws Exception {
        Path photos = ImageFolders.classFolders(temp.resolve("photos"), 1, "cat", "dog");
        Path inside = photos.resolve("shards");
        // Written, the output was a third class folder of the same command's rerun: "already holds a different dataset".
        assertUsageError(pinshard("convert", photos.toString(), "-o", inside.toString()), "output " + inside
            + " is inside the input folder " + photos + ": give -o a directory outside it, e.g. " + photos + "-shards");
        assertFalse(Files.exists(inside), "nothing written");
    }

    @Test
    void previewRefusesAnOutItCannotWriteBeforeDoingAnyWork() throws Exception {
        Path dataset = temp.resolve("data");
        Launcher.Result convert = pinshard("convert", ImageFolders.classFolders(temp.resolve("photos"), 2, "a")
            .toString(), "-o", dataset.toString(), "--progress", "none");
        assertEquals(0, convert.status(), convert.toString());
        Path folder = Files.createDirectories(temp.resolve("sheets"));
        assertUsageError(pinshard("preview", dataset.toString(), "--out", folder.toString()),
            "--out " + folder + " is a directory: give a file name, e.g. " + folder.resolve("sheet.png"));
        Path nowhere = temp.resolve("no-such-folder/sheet.png");
        assertUsageError(pinshard("preview", dataset.toString(), "--out", nowhere.toString()),
            "the folder " + nowhere.getParent() + " does not exist");
        Path unknown = temp.resolve("sheet.pgn");
        assertUsageError(pinshard("preview", dataset.toString(), "--out", unknown.toString()),
            "--out " + unknown + ": no image format for that name; give a name ending in .png");
        assertFalse(Files.exists(unknown) || Files.exists(nowhere), "nothing written");
    }

    @Test
    void pullIntoAFolderOfOtherFilesOrAFileIsRefusedAndLeavesThemAsTheyWere() throws Exception {
        Path dataset = temp.resolve("data");
        Path photos = ImageFolders.classFolders(temp.resolve("photos"), 2, "a", "b");
        assertEquals(0, pinshard("convert", photos.toString(), "-o", dataset.toString(), "--progress", "none").status());
        try (S3TestServer server = S3TestServer.start()) {
            server.createBuckets("bucket");
            Launcher.Result push = s3(server, "push", dataset.toString(), "s3://bucket/set");
            assertEquals(0, push.status(), push.toString());
            assertRefused(s3(server, "pull", "s3://bucket/set", photos.toString()), 1,
                photos + " holds files that are not a pinshard dataset's (2: a, b): nothing downloaded; give pull a"
                    + " new or empty directory");
            try (Stream<Path> left = Files.list(photos)) {
                assertEquals(List.of("a", "b"), left.map(p -> p.getFileName().toString()).sorted().toList(),
                    "nothing added to the folder");
            }
            Path notes = Files.writeString(temp.resolve("notes.txt"), "mine");
            assertRefused(s3(server, "pull", "s3://bucket/set", notes.toString()), 1,
                notes + " is a file, not a directory: nothing downloaded");
            Path fresh = temp.resolve("pulled");
            for (int run = 0; run < 2; run++) { // a dataset's own names do not count: the rerun is accepted
                Launcher.Result pull = s3(server, "pull", "s3://bucket/set", fresh.toString());
                assertEquals(0, pull.status(), pull.toString());
            }
        }
    }

    /** {@code ./pinshard ARGS --s3-path-style} with the store in the SDK's variables. */
    private Launcher.Result s3(S3TestServer server, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(args));
        command.add("--s3-path-style");
        ProcessBuilder builder = Launcher.pinshard(temp.resolve("home"), command.toArray(String[]::new));
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(name -> name.startsWith("AWS_") || name.startsWith("PINSHARD_S3"));
        env.put("AWS_ENDPOINT_URL", server.endpoint().toString());
        env.put("AWS_REGION", "us-east-1");
        env.put("AWS_ACCESS_KEY_ID", server.accessKey());
        env.put("AWS_SECRET_ACCESS_KEY", server.secretKey());
        return Launcher.run(builder, temp.resolve("logs"), 120);
    }

    /**
     * {@code kill PID} (SIGTERM, what Ctrl-C's SIGINT also does to the JVM) in the middle of a convert: it said
     * nothing at all; now one line says the output is no dataset yet and that the same command resumes, which it does.
     */
    @Test
    void aConvertStoppedByASignalSaysItsOutputIsNoDatasetYetAndTheSameCommandResumes() throws Exception {
        Path photos = ImageFolders.classFolders(temp.resolve("photos"), 150, "a", "b");
        Path out = temp.resolve("data");
        // Enlarged and JPEG-encoded on one worker in 1-MiB shards: a first shard within a tenth of a second, the run
        // seconds long (4 s here).
        String[] convert = {"convert", photos.toString(), "-o", out.toString(), "--upscale", "--shorter-side", "2048",
            "--codec", "jpeg", "--workers", "1", "--shard-size", "1MiB", "--progress", "none"};
        Path err = temp.resolve("convert-stderr.log");
        Process process = Launcher.pinshard(temp, convert).redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(err.toFile()).start();
        // A shard is renamed into place before the resume journal records it: what a rerun resumes from is the
        // journal's first shard line (header, then one line per shard, each ended by a newline once whole).
        Path journal = out.resolve("convert-journal.json");
        assertTrue(Processes.await(() -> journalledShards(journal) >= 1, 60), "a first shard is journalled");
        // Frozen (SIGSTOP) the moment its first shard is journalled, the run is checked to be midway, and the signal
        // is sent while it cannot move: it lands midway however loaded the machine, not after a run that ended.
        kill("-STOP", process);
        assertTrue(Processes.await(() -> stopped(process), 30), "every thread of the convert stopped");
        assertTrue(process.isAlive() && !Files.exists(out.resolve("manifest.json")), "midway when frozen");
        process.destroy(); // SIGTERM, as `kill PID`: pending until the process runs again
        kill("-CONT", process);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "stops");
        String said = Files.readString(err);
        assertEquals(143, process.exitValue(), "stopped by the signal, not finished before it: " + said);
        assertTrue(said.contains("pinshard convert: stopped by a signal; " + out + " keeps its finished shards but has"
            + " no manifest yet, so it is not a dataset; run the same command again to resume"), said);
        assertFalse(said.contains("\tat "), said);
        assertFalse(Files.exists(out.resolve("manifest.json")), "nothing presented as complete");
        Launcher.Result again = pinshard(convert);
        assertEquals(0, again.status(), again.toString());
        assertTrue(again.stdout().contains("resumed after"), again.toString());
        assertFalse(again.stderr().contains("stopped by a signal"), "a run that finishes says nothing of a stop");
    }

    /** Whole shard lines in a convert's resume journal (0 while there is none). */
    private static long journalledShards(Path journal) {
        try {
            byte[] bytes = Files.readAllBytes(journal);
            long lines = 0;
            for (byte b : bytes) {
                lines += b == '\n' ? 1 : 0;
            }
            return Math.max(0, lines - 1);
        } catch (IOException notYet) {
            return 0;
        }
    }

    /** {@code kill SIGNAL PID}. */
    private static void kill(String signal, Process process) throws Exception {
        Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid())).inheritIO().start();
        assertEquals(0, kill.waitFor(), "kill " + signal + " " + process.pid());
    }

    /** Whether every thread of {@code process} is stopped (state T), or it is gone. */
    private static boolean stopped(Process process) {
        return !process.isAlive()
            || Processes.threads(process.pid()).stream().allMatch(thread -> Processes.state(thread) == 'T');
    }

    @Test
    void serveAndBenchHelpShowOneRangePerRangeOption() throws Exception {
        for (String command : new String[] {"serve", "bench"}) {
            Launcher.Result help = pinshard(command, "--help");
            assertEquals(0, help.status(), help.toString());
            for (String shown : new String[] {"--scale=MIN,MAX", "--ratio=MIN,MAX", "--fields=NAME[,NAME...]"}) {
                assertTrue(Pattern.compile(Pattern.quote(shown) + "\\s").matcher(help.stdout()).find(),
                    command + " --help shows " + shown + ":\n" + help);
            }
            // picocli's syntax for a split value read as if several ranges or lists were taken
            assertFalse(help.stdout().contains("MIN,MAX[") || help.stdout().contains("NAME...]["), help.toString());
        }
    }
}
