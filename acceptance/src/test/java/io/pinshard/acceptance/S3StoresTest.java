package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.fixtures.TestDatasets;
import io.pinshard.testkit.S3TestServer;
import io.pinshard.testkit.S3rverTestServer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./pinshard push}, {@code verify s3://} and {@code bench s3://} against both S3 implementations the tests
 * have (s3proxy, and node's s3rver over http and https), configured as docs/object-storage.md says: the SDK's
 * {@code AWS_*} variables and {@code --s3-path-style}. s3rver keeps aws-chunked request bodies verbatim, so over
 * http a push that did not check what landed "succeeded" with every object corrupt (issue 23, finding 5).
 */
@org.junit.jupiter.api.Tag("process")
class S3StoresTest {
    private static final String BUCKET = "datasets";
    private static final String PREFIX = "ds";

    @TempDir
    static Path temp;
    private static Path dataset;

    @BeforeAll
    static void writeDataset() throws Exception {
        // Three shards of about 40 KB: single PUTs, the case where every aws-chunked body is stored framed.
        dataset = TestDatasets.write(temp.resolve("dataset"), 36, 32, 40_000, 23);
    }

    @Test
    void pushVerifyAndBenchThroughS3proxy() throws Exception {
        try (S3TestServer server = S3TestServer.start()) {
            server.blobStore().createContainerInLocation(null, BUCKET);
            pushVerifyBench(server.endpoint(), S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY, List.of(), "s3proxy",
                null);
        }
    }

    @Test
    void pushVerifyAndBenchThroughS3rverOverHttp() throws Exception {
        s3rverIsHere();
        try (S3rverTestServer server = S3rverTestServer.start(temp.resolve("s3rver-http"), false, BUCKET)) {
            pushVerifyBench(server.endpoint(), S3rverTestServer.ACCESS_KEY, S3rverTestServer.SECRET_KEY, List.of(),
                "s3rver-http", server);
        }
    }

    @Test
    void pushVerifyAndBenchThroughS3rverOverHttps() throws Exception {
        s3rverIsHere();
        try (S3rverTestServer server = S3rverTestServer.start(temp.resolve("s3rver-https"), true, BUCKET)) {
            pushVerifyBench(server.endpoint(), S3rverTestServer.ACCESS_KEY, S3rverTestServer.SECRET_KEY,
                server.trustOptions(), "s3rver-https", server);
        }
    }

    /**
     * With chunked encoding forced on (by the environment setting; S3OptionsMixinTest covers the option), s3rver is
     * a store that mangles every body: push must fail, not claim success.
     */
    @Test
    void pushToAStoreThatKeepsChunkFramingFailsNamingTheObjectAndWritesNoManifest() throws Exception {
        s3rverIsHere();
        try (S3rverTestServer server = S3rverTestServer.start(temp.resolve("s3rver-mangling"), false, BUCKET)) {
            Launcher.Result push = run(server.endpoint(), S3rverTestServer.ACCESS_KEY, S3rverTestServer.SECRET_KEY,
                List.of(), Map.of("PINSHARD_S3_CHUNKED_ENCODING", "on"), "push", dataset.toString(),
                "s3://" + BUCKET + "/" + PREFIX);
            assertEquals(1, push.status(), push.toString());
            assertTrue(push.stderr().contains("s3://" + BUCKET + "/" + PREFIX + "/shard-"), push.toString());
            assertTrue(Pattern.compile("keeps \\d+ bytes, \\d+ were sent").matcher(push.stderr()).find(),
                "says what differed: " + push);
            assertFalse(push.stdout().contains("pushed"), push.toString());
            assertFalse(server.holds(BUCKET, PREFIX + "/manifest.json"), "no manifest over corrupt shards");
        }
    }

    private static void pushVerifyBench(URI endpoint, String key, String secret, List<String> javaOptions,
                                        String store, S3rverTestServer files) throws Exception {
        String location = "s3://" + BUCKET + "/" + PREFIX;
        Launcher.Result push = run(endpoint, key, secret, javaOptions, "push", dataset.toString(), location);
        assertEquals(0, push.status(), store + ": " + push);
        assertTrue(push.stdout().contains("manifest written last"), store + ": " + push);
        if (files != null) {
            // What the store keeps, read from its directory: the local files byte for byte.
            for (Path local : TestDatasets.files(dataset)) {
                String name = local.getFileName().toString();
                byte[] stored = files.stored(BUCKET, PREFIX + "/" + name);
                assertArrayEquals(Files.readAllBytes(local), stored, store + " keeps " + name + " as " + stored.length
                    + " bytes beginning '" + printable(stored) + "', not the " + Files.size(local) + " pushed");
            }
        }
        // Over http the SDK sends bodies aws-chunked, which s3rver keeps framed: push says it sends them again.
        boolean framedBodies = files != null && "http".equals(endpoint.getScheme());
        assertEquals(framedBodies, push.stderr().contains("pushing again with chunked encoding off"),
            store + ": " + push);
        Launcher.Result verify = run(endpoint, key, secret, javaOptions, "verify", location);
        assertEquals(0, verify.status(), store + ": " + verify);
        Launcher.Result bench = run(endpoint, key, secret, javaOptions, "bench", location, "--seconds", "1",
            "--warmup", "0", "--batch", "8", "--crop", "32", "--workers", "1", "--json");
        assertEquals(0, bench.status(), store + ": " + bench);
        assertTrue(bench.stdout().contains("\"records\":36"), store + " streams all 36 records: " + bench);
        Matcher images = Pattern.compile("\"images\":(\\d+)").matcher(bench.stdout());
        assertTrue(images.find() && Long.parseLong(images.group(1)) > 0, store + ": " + bench);
    }

    /** {@code ./pinshard ARGS --s3-path-style} with the store in the SDK's variables, as the docs configure it. */
    private static Launcher.Result run(URI endpoint, String key, String secret, List<String> javaOptions,
                                       String... args) throws Exception {
        return run(endpoint, key, secret, javaOptions, Map.of(), args);
    }

    private static Launcher.Result run(URI endpoint, String key, String secret, List<String> javaOptions,
                                       Map<String, String> settings, String... args) throws Exception {
        return Launcher.run(Launcher.onStore(temp.resolve("home"), endpoint, key, secret, javaOptions, settings, args),
            temp.resolve("logs"), 60);
    }

    private static void s3rverIsHere() {
        Optional<String> why = S3rverTestServer.unavailable();
        assumeTrue(why.isEmpty(), () -> "skipped: " + why.orElse(""));
    }

    private static String printable(byte[] bytes) {
        String head = new String(bytes, 0, Math.min(bytes.length, 40), StandardCharsets.ISO_8859_1);
        return head.replaceAll("[^\\x20-\\x7e]", ".");
    }
}
