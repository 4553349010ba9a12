package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.fixtures.TestDatasets;
import io.pinshard.testkit.S3TestServer;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard in the node's S3 cache overwritten with as many other bytes (issue 37, path 2) is not served: {@code
 * ./pinshard bench s3://} sees that the file changed since it was installed and fetches it again; a change the
 * file's size, mtime and inode do not show (the mtime put back, as bit rot or {@code touch -d} would leave it) is
 * found by {@code verify s3://} and by {@code bench --crc always}, which evict the copy and fetch it again. Each
 * leaves the cache holding the object's bytes.
 */
@Tag("process")
class S3CacheRepairTest {
    private static final String BUCKET = "repair";
    private static final String LOCATION = "s3://" + BUCKET + "/ds";
    /** Record 0's payload starts right after the 64-byte header (alignment 64): 256 of its 3,072 bytes. */
    private static final int PAYLOAD_AT = 64;
    private static final int DAMAGED_BYTES = 256;

    @TempDir
    static Path temp;
    private static S3TestServer server;

    @BeforeAll
    static void pushARawDataset() throws Exception {
        // Raw 32 x 32 pixels in shards of about 12 KB: CRC "auto" does not check raw payloads.
        Path dataset = TestDatasets.write(temp.resolve("dataset"), 24, 32, 12_000, 37);
        server = S3TestServer.start();
        server.createBuckets(BUCKET);
        Launcher.Result push = run("push", dataset.toString(), LOCATION);
        assertEquals(0, push.status(), push.toString());
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void benchFetchesAgainAShardOverwrittenInTheCache() throws Exception {
        Launcher.Result bench = damageThenRun("cache-bench", false, cache -> bench(cache, "--json"));
        assertTrue(bench.stdout().contains("\"skipped_records\":0"), bench.toString());
        assertTrue(bench.stderr().contains("changed since it was installed"), "says why: " + bench);
    }

    @Test
    void verifyEvictsACachedShardThatFailsItsChecksAndFetchesItAgain() throws Exception {
        Launcher.Result verify = damageThenRun("cache-verify", true,
            cache -> new String[] {"verify", LOCATION, "--cache-dir", cache.toString()});
        assertTrue(verify.stdout().contains(LOCATION + ": intact"), verify.toString());
        assertTrue(verify.stderr().contains("shard-00000.pinshard: the cached copy")
            && verify.stderr().contains("payload CRC32C"), "names the shard and what failed: " + verify);
    }

    @Test
    void benchWithCrcAlwaysEvictsACachedShardWhosePayloadFailsItsCrcAndReadsItAgain() throws Exception {
        Launcher.Result bench = damageThenRun("cache-crc", true, cache -> bench(cache, "--crc", "always", "--json"));
        assertTrue(bench.stdout().contains("\"skipped_records\":0"), "the record is read from the new copy: " + bench);
    }

    /**
     * Fills the cache {@code name} with a bench run, damages its first shard ({@link #damage}), runs {@code command}
     * over that cache: it must succeed and leave the object's bytes in the cache. Returns what it printed.
     */
    private static Launcher.Result damageThenRun(String name, boolean keepMtime, Function<Path, String[]> command)
        throws Exception {
        Path cache = temp.resolve(name);
        Path shard = warm(cache);
        byte[] object = Files.readAllBytes(shard);
        damage(shard, keepMtime);
        Launcher.Result result = run(command.apply(cache));
        assertEquals(0, result.status(), result.toString());
        assertArrayEquals(object, Files.readAllBytes(shard), "the cache holds the object again: " + result);
        return result;
    }

    /** Fills {@code cache} with a bench run; returns its cached copy of shard-00000.pinshard. */
    private static Path warm(Path cache) throws Exception {
        Launcher.Result bench = run(bench(cache));
        assertEquals(0, bench.status(), bench.toString());
        try (Stream<Path> files = Files.walk(cache.resolve(BUCKET))) {
            List<Path> first = files.filter(f -> f.getFileName().toString().equals("shard-00000.pinshard")
                && f.getParent().getParent().getFileName().toString().equals("shards")).toList();
            assertEquals(1, first.size(), "one cached shard-00000.pinshard under " + cache + ": " + first);
            return first.get(0);
        }
    }

    private static String[] bench(Path cache, String... more) {
        List<String> args = new ArrayList<>(List.of("bench", LOCATION, "--cache-dir", cache.toString(),
            "--seconds", "0.5", "--warmup", "0", "--batch", "8", "--crop", "16", "--workers", "1"));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    /**
     * Overwrites 256 bytes of record 0's payload with their complement: the same length, header, index and footer
     * intact. With {@code keepMtime}, the mtime is put back afterwards.
     */
    private static void damage(Path shard, boolean keepMtime) throws IOException {
        FileTime mtime = Files.getLastModifiedTime(shard);
        try (FileChannel file = FileChannel.open(shard, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer bytes = ByteBuffer.allocate(DAMAGED_BYTES);
            file.read(bytes, PAYLOAD_AT);
            for (int i = 0; i < DAMAGED_BYTES; i++) {
                bytes.put(i, (byte) ~bytes.get(i));
            }
            file.write(bytes.flip(), PAYLOAD_AT);
        }
        if (keepMtime) {
            Files.setLastModifiedTime(shard, mtime);
        }
    }

    private static Launcher.Result run(String... args) throws Exception {
        return Launcher.run(Launcher.onStore(temp.resolve("home"), server.endpoint(), S3TestServer.ACCESS_KEY,
            S3TestServer.SECRET_KEY, List.of(), Map.of(), args), temp.resolve("logs"), 60);
    }
}
