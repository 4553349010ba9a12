package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.fixtures.TestDatasets;
import io.pinshard.testkit.HeldBlobStore;
import io.pinshard.testkit.S3TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./pinshard} on a terminal (a pseudo-terminal of 80 columns, acceptance/src/test/python/pty_run.py), stopped
 * as a terminal stops it: once the progress bar shows a finished image, SIGINT to the whole process group, the JVM
 * and the launcher's stderr filter alike (Ctrl-C). Convert's notice that it was stopped and that the same command
 * resumes must reach the terminal (the filter died first, and the notice with it). Push and pull likewise, stopped
 * once their bar shows a shard in place while the test store holds every other shard's transfer (so the signal
 * surely lands mid-transfer): their notice says how far they got and that the same command resumes.
 */
@Tag("process")
class TerminalStopTest {
    @TempDir
    Path temp;

    @Test
    void ctrlCToTheProcessGroupKeepsConvertsStopNotice() throws Exception {
        assumeTrue(Files.isExecutable(PseudoTerminal.PYTHON), PseudoTerminal.PYTHON + " runs the pseudo-terminal");
        Path photos = ImageFolders.largeUniformPngs(temp.resolve("photos"), 6, 4000, 3000, "cat", "dog");
        Path out = temp.resolve("data");
        Launcher.Result stopped = PseudoTerminal.pinshard(temp, 80, List.of("--signal", "INT", "--after",
            "[1-9][0-9]*/12 img"), "convert", photos.toString(), "-o", out.toString(), "--workers", "1");
        assertEquals(130, stopped.status(), stopped.toString());
        assertTrue(stopped.stdout().contains("pinshard convert: stopped by a signal; " + out), stopped.toString());
        assertTrue(stopped.stdout().contains("run the same command again to resume"), stopped.toString());
    }

    @Test
    void ctrlCToTheProcessGroupKeepsPushsStopNoticeWithWhatWasSent() throws Exception {
        assumeTrue(Files.isExecutable(PseudoTerminal.PYTHON), PseudoTerminal.PYTHON + " runs the pseudo-terminal");
        Path dataset = TestDatasets.write(temp.resolve("dataset"), 36, 32, 20_000, 5); // 6 shards, single PUTs
        int shards = (int) TestDatasets.files(dataset).stream().filter(f -> f.toString().endsWith(".pinshard")).count();
        assertTrue(shards >= 4, "shards " + shards);
        HeldBlobStore[] held = new HeldBlobStore[1];
        try (S3TestServer server = S3TestServer.start(store -> held[0] = new HeldBlobStore(store))) {
            server.createBuckets("datasets");
            held[0].hold("shard-", 1); // one shard goes up, the others wait in the store
            try {
                Launcher.Result stopped = PseudoTerminal.run(temp, 160, List.of("--signal", "INT", "--after",
                    "1/" + shards + " shards"), onStore(server, "push", dataset.toString(), "s3://datasets/ds"));
                assertEquals(130, stopped.status(), stopped.toString());
                assertTrue(stopped.stdout().contains("pinshard push: stopped by a signal; 1 of " + shards
                    + " shard(s) in place, "), stopped.toString());
                assertTrue(stopped.stdout().contains(" sent; the manifest goes up last, so s3://datasets/ds is a"
                    + " complete dataset only once a push finishes; the rerun skips the shards in place; run the same"
                    + " command again to resume"), stopped.toString());
            } finally {
                held[0].release();
            }
            assertFalse(server.blobStore().blobExists("datasets", "ds/manifest.json"), "no manifest after a stop");
        }
    }

    @Test
    void ctrlCToTheProcessGroupKeepsPullsStopNoticeWithWhatWasReceived() throws Exception {
        assumeTrue(Files.isExecutable(PseudoTerminal.PYTHON), PseudoTerminal.PYTHON + " runs the pseudo-terminal");
        Path dataset = TestDatasets.write(temp.resolve("dataset"), 36, 32, 20_000, 5);
        int shards = (int) TestDatasets.files(dataset).stream().filter(f -> f.toString().endsWith(".pinshard")).count();
        assertTrue(shards >= 4, "shards " + shards);
        HeldBlobStore[] held = new HeldBlobStore[1];
        try (S3TestServer server = S3TestServer.start(store -> held[0] = new HeldBlobStore(store))) {
            server.createBuckets("datasets");
            Launcher.Result push = Launcher.run(onStore(server, "push", dataset.toString(), "s3://datasets/ds"),
                temp.resolve("logs"), 120);
            assertEquals(0, push.status(), push.toString());
            held[0].hold("shard-", 1); // one shard comes down, the others wait in the store
            Path into = temp.resolve("pulled");
            try {
                Launcher.Result stopped = PseudoTerminal.run(temp, 160, List.of("--signal", "INT", "--after",
                    "1/" + shards + " shards"), onStore(server, "pull", "s3://datasets/ds", into.toString()));
                assertEquals(130, stopped.status(), stopped.toString());
                assertTrue(stopped.stdout().contains("pinshard pull: stopped by a signal; 1 of " + shards
                    + " shard(s) in place, "), stopped.toString());
                assertTrue(stopped.stdout().contains(" received; the manifest goes in last, so " + into + " is a"
                    + " dataset only once a pull finishes; the rerun keeps the shards in place; run the same command"
                    + " again to resume"), stopped.toString());
            } finally {
                held[0].release();
            }
            assertFalse(Files.exists(into.resolve("manifest.json")), "no manifest after a stop");
        }
    }

    private ProcessBuilder onStore(S3TestServer server, String... args) throws Exception {
        return Launcher.onStore(Files.createDirectories(temp.resolve("home")), server.endpoint(),
            S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY, List.of(), Map.of(), args);
    }
}
