package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.fixtures.TestDatasets;
import io.pinshard.testkit.S3TestServer;
import io.pinshard.testkit.S3rverTestServer;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk (a 3 MiB tmpfs, mounted by the test: it needs root, and is skipped saying so without it) under
 * {@code ./pinshard pull}, the S3 shard cache of {@code bench s3://} and the store a {@code push} writes to: each
 * fails with a clear error, and nothing it leaves reads later as a dataset or a cached shard.
 */
@Tag("process")
class DiskFullTest {
    private static final String BUCKET = "full";
    private static final String LOCATION = "s3://" + BUCKET + "/ds";

    @TempDir
    static Path temp;
    private static Path dataset;
    /** s3proxy (in this JVM, on a disk with room) holding the dataset at {@link #LOCATION}, pushed there. */
    private static S3TestServer server;
    private Path mounted;

    @BeforeAll
    static void writeAndPushDataset() throws Exception {
        // About 4.7 MB of incompressible raw pixels in shards of about 1 MiB: more than the 3 MiB disk holds.
        dataset = TestDatasets.write(temp.resolve("dataset"), 96, 128, 1 << 20, 41);
        server = S3TestServer.start();
        server.createBuckets(BUCKET);
        Launcher.Result push = run(server, "push", dataset.toString(), LOCATION);
        assertEquals(0, push.status(), push.toString());
    }

    @AfterAll
    static void stopStore() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @AfterEach
    void unmount() throws Exception {
        if (mounted != null) {
            command("umount", mounted.toString());
        }
    }

    /** A new 3 MiB tmpfs at {@code name} under the test's folder; the test is skipped where none can be mounted. */
    private Path smallDisk(String name) throws Exception {
        Path dir = Files.createDirectories(temp.resolve(name));
        String failed = command("mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", dir.toString());
        assumeTrue(failed == null,
            () -> "skipped: no small file system to fill (mount -t tmpfs needs root): " + failed);
        mounted = dir;
        return dir;
    }

    @Test
    void pullOntoAFullDiskFailsAtOnceNamingTheFileAndTheRoomAndLeavesNoDataset() throws Exception {
        Path target = smallDisk("pull").resolve("pulled");
        Launcher.Result pull = run(server, "pull", LOCATION, target.toString());
        assertNotEquals(0, pull.status(), pull.toString());
        assertTrue(pull.stderr().contains("No space left on device") && pull.stderr().contains(target.toString())
            && pull.stderr().contains("bytes free, the object needs"), "names the file and the room: " + pull);
        assertFalse(pull.stderr().contains("attempt(s)"), "a full disk is not retried as a store failure: " + pull);
        assertFalse(Files.exists(target.resolve("manifest.json")), pull.toString());
        for (String command : List.of("inspect", "verify")) {
            Launcher.Result read = run(server, command, target.toString());
            assertNotEquals(0, read.status(), command + " reads no dataset there: " + read);
            assertTrue(read.stderr().contains("not a pinshard dataset"), read.toString());
        }
    }

    @Test
    void aCacheFillOnAFullDiskFailsClearlyAndLeavesOnlyWholeShardsThatALaterRunReuses() throws Exception {
        Path cache = smallDisk("cache").resolve("cache");

        Launcher.Result bench = run(server, "bench", LOCATION, "--cache-dir", cache.toString(), "--seconds", "0.5",
            "--warmup", "0", "--batch", "8", "--crop", "16", "--workers", "1");
        assertNotEquals(0, bench.status(), bench.toString());
        assertTrue(bench.stderr().contains("No space left on device")
            && bench.stderr().contains("bytes free, the object needs")
            && bench.stderr().contains(cache.toString()),
            "names the cache file and the room: " + bench);
        assertFalse(bench.stderr().contains("attempt(s)"),
            "a full disk is not retried as a store failure: " + bench);
        // Nothing partial under a shard's name, no download left behind.
        try (Stream<Path> files = Files.walk(cache)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                String where = cache.relativize(file).toString();
                assertFalse(where.contains(".part"), "a part left behind: " + where);
                if (file.getParent().getParent().getFileName().toString().equals("shards")) {
                    assertArrayEquals(Files.readAllBytes(dataset.resolve(file.getFileName())),
                        Files.readAllBytes(file), "a cached shard is whole: " + where);
                }
            }
        }
        // With room, the same command finishes over what the full disk left.
        assertEquals(null, command("mount", "-o", "remount,size=64m", mounted.toString()));
        Launcher.Result again = run(server, "bench", LOCATION, "--cache-dir", cache.toString(), "--seconds", "0.5",
            "--warmup", "0", "--batch", "8", "--crop", "16", "--workers", "1", "--crc", "always", "--json");
        assertEquals(0, again.status(), again.toString());
        assertTrue(again.stdout().contains("\"skipped_records\":0"), again.toString());
    }

    /** The store's disk is the full one (s3rver keeps objects as files): push fails naming an object, no manifest. */
    @Test
    void pushToAStoreWhoseDiskIsFullFailsNamingTheObjectAndWritesNoManifest() throws Exception {
        Optional<String> why = S3rverTestServer.unavailable();
        assumeTrue(why.isEmpty(), () -> "skipped: " + why.orElse(""));
        Path disk = smallDisk("store");
        try (S3rverTestServer store = S3rverTestServer.start(disk, false, BUCKET)) {
            Launcher.Result push = run(store.endpoint(), S3rverTestServer.ACCESS_KEY, S3rverTestServer.SECRET_KEY,
                "push", dataset.toString(), LOCATION);
            assertEquals(1, push.status(), push.toString());
            assertTrue(push.stderr().contains(LOCATION + "/shard-"), "names the object: " + push);
            assertFalse(push.stdout().contains("pushed"), push.toString());
            assertFalse(store.holds(BUCKET, "ds/manifest.json"), "no manifest over missing shards: " + push);
        }
    }

    private static Launcher.Result run(S3TestServer server, String... args) throws Exception {
        return run(server.endpoint(), S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY, args);
    }

    private static Launcher.Result run(URI endpoint, String key, String secret, String... args) throws Exception {
        return Launcher.run(Launcher.onStore(temp.resolve("home"), endpoint, key, secret, List.of(), Map.of(), args),
            temp.resolve("logs"), 60);
    }

    /** Runs a system command; null when it succeeded, else what it printed. */
    private static String command(String... args) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>(List.of(args));
        Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return process.waitFor() == 0 ? null : String.join(" ", line) + ": " + output.strip();
    }
}
