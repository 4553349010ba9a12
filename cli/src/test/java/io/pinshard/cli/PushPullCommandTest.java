package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.DatasetWriteLock;
import io.pinshard.format.Json;
import io.pinshard.s3.S3Clients;
import io.pinshard.s3.S3Location;
import io.pinshard.s3.S3TestSettings;
import io.pinshard.testkit.S3ServerExtension;
import io.pinshard.testkit.S3TestServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * push, pull and convert --output s3:// against a real S3 server on loopback; everything they print, the log
 * included, is captured and searched for the secret.
 */
@org.junit.jupiter.api.Tag("process")
class PushPullCommandTest {
    private static final AtomicInteger BUCKETS = new AtomicInteger();
    @RegisterExtension
    static final S3ServerExtension server = new S3ServerExtension();

    @TempDir
    Path tmp;

    private String bucket;
    private Path credentials;
    private final List<String> printed = new ArrayList<>();

    @BeforeEach
    void newBucketAndCredentials() throws IOException {
        bucket = "cli-" + BUCKETS.incrementAndGet();
        try (S3Client s3 = S3Clients.create(S3TestSettings.of(server).build())) {
            s3.createBucket(b -> b.bucket(bucket));
        }
        credentials = tmp.resolve("credentials");
        Files.writeString(credentials, "[default]\naws_access_key_id = " + S3TestServer.ACCESS_KEY
            + "\naws_secret_access_key = " + S3TestServer.SECRET_KEY + "\n");
    }

    /** The command with the S3 options added, its picocli output and whatever it wrote to System.out/err. */
    private CommandTestSupport.Result run(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--s3-endpoint", server.endpoint().toString(), "--s3-path-style", "--s3-region", "us-east-1",
            "--s3-credentials-file", credentials.toString(), "--s3-max-attempts", "1"));
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream capture = new PrintStream(captured, true, StandardCharsets.UTF_8);
        CommandTestSupport.Result result;
        try {
            System.setOut(capture);
            System.setErr(capture);
            result = CommandTestSupport.run(all.toArray(String[]::new));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        printed.add(result.out());
        printed.add(result.err());
        printed.add(captured.toString(StandardCharsets.UTF_8));
        return result;
    }

    private void assertSecretNeverPrinted() {
        for (String text : printed) {
            assertFalse(text.contains(S3TestServer.SECRET_KEY), text);
        }
    }

    @Test
    void pushThenPullGivesADatasetThatVerifiesAndTheSecretIsNeverPrinted() throws IOException {
        Path local = tmp.resolve("local");
        CommandTestSupport.writeDataset(local, 30);
        String to = "s3://" + bucket + "/sets/one";
        CommandTestSupport.Result pushed = run("push", local.toString(), to, "--progress", "log", "--threads", "2");
        assertEquals(0, pushed.exitCode(), pushed.err());
        int shards = Json.readManifest(local).shards().size();
        assertTrue(pushed.out().contains(shards + " shard(s) uploaded"), pushed.out());
        assertTrue(pushed.out().contains("manifest written last"), pushed.out());
        assertTrue(printed.get(2).contains("push: " + shards + "/" + shards + " shards"), printed.get(2));

        Path pulled = tmp.resolve("pulled");
        CommandTestSupport.Result pull = run("pull", to, pulled.toString(), "--progress", "none");
        assertEquals(0, pull.exitCode(), pull.err());
        assertTrue(pull.out().contains(shards + " shard(s) downloaded and verified"), pull.out());
        CommandTestSupport.Result verify = CommandTestSupport.run("verify", pulled.toString());
        assertEquals(0, verify.exitCode(), verify.out());
        assertTrue(verify.out().contains("intact"), verify.out());

        CommandTestSupport.Result again = run("push", local.toString(), to, "--progress", "none");
        assertEquals(0, again.exitCode(), again.err());
        assertTrue(again.out().contains("0 shard(s) uploaded"), again.out());
        assertTrue(again.out().contains(shards + " already there"), again.out());
        assertSecretNeverPrinted();
    }

    @Test
    void aKilledWritersLockFileIsNotPushedAndAPullIntoAHeldDirectoryIsRefused() throws IOException {
        Path local = tmp.resolve("local");
        CommandTestSupport.writeDataset(local, 10);
        // What a writer killed with kill -9 leaves: readers, verify and push pass over it.
        Files.writeString(local.resolve(DatasetWriteLock.FILE_NAME), "pid=999999\nwriter=pinshard convert\n");
        assertEquals(0, CommandTestSupport.run("verify", local.toString()).exitCode());
        assertEquals(0, CommandTestSupport.run("inspect", local.toString()).exitCode());
        String to = "s3://" + bucket + "/locked";
        assertEquals(0, run("push", local.toString(), to, "--progress", "none").exitCode());
        List<String> keys;
        try (S3Client s3 = S3Clients.create(S3TestSettings.of(server).build())) {
            keys = s3.listObjectsV2(b -> b.bucket(bucket).prefix("locked/")).contents().stream()
                .map(o -> o.key().substring("locked/".length())).sorted().toList();
        }
        List<String> expected = new ArrayList<>(List.of(DatasetManifest.FILE_NAME));
        Json.readManifest(local).shards().forEach(shard -> expected.add(shard.file()));
        assertEquals(expected.stream().sorted().toList(), keys, "the manifest and its shards, nothing else");

        Path pulled = tmp.resolve("pulled");
        try (DatasetWriteLock held = DatasetWriteLock.hold(pulled, "pinshard convert")) {
            CommandTestSupport.Result refused = run("pull", to, pulled.toString(), "--progress", "none");
            assertEquals(PinshardCommand.EXIT_USAGE, refused.exitCode(), refused.out());
            assertTrue(refused.err().contains("pinshard pull: pinshard convert (pid " + ProcessHandle.current().pid()
                + ", this process) is writing " + pulled), refused.err());
            assertTrue(refused.err().contains("it holds the lock file " + held.file()), refused.err());
            try (var names = Files.list(pulled)) {
                assertEquals(List.of(DatasetWriteLock.FILE_NAME), names.map(p -> p.getFileName().toString()).toList());
            }
        }
        CommandTestSupport.Result pull = run("pull", to, pulled.toString(), "--progress", "none");
        assertEquals(0, pull.exitCode(), pull.err());
        assertFalse(Files.exists(pulled.resolve(DatasetWriteLock.FILE_NAME)), "the pull's own lock went with it");
        assertEquals(0, CommandTestSupport.run("verify", pulled.toString()).exitCode());
        assertSecretNeverPrinted();
    }

    @Test
    void aWrongSecretFailsWithTheStoresAnswerAndWithoutPrintingEitherSecret() throws IOException {
        Path local = tmp.resolve("local");
        CommandTestSupport.writeDataset(local, 10);
        String wrong = "wrong-secret-that-must-not-show";
        Files.writeString(credentials, "[default]\naws_access_key_id = " + S3TestServer.ACCESS_KEY
            + "\naws_secret_access_key = " + wrong + "\n");
        CommandTestSupport.Result refused = run("push", local.toString(), "s3://" + bucket + "/x", "--progress", "none");
        assertEquals(1, refused.exitCode());
        assertTrue(refused.err().contains("s3://" + bucket + "/x/manifest.json"), refused.err());
        assertTrue(refused.err().contains("403"), refused.err());
        for (String text : printed) {
            assertFalse(text.contains(wrong), text);
        }
        assertSecretNeverPrinted();
    }

    @Test
    void aTamperedShardFailsThePullNamingBucketAndKey() throws IOException {
        Path local = tmp.resolve("local");
        CommandTestSupport.writeDataset(local, 20);
        String to = "s3://" + bucket + "/t";
        assertEquals(0, run("push", local.toString(), to, "--progress", "none").exitCode());
        String file = Json.readManifest(local).shards().get(0).file();
        byte[] bytes = server.blobStore().getBlob(bucket, "t/" + file).getPayload().openStream().readAllBytes();
        bytes[200] ^= 1;
        server.blobStore().putBlob(bucket, server.blobStore().blobBuilder("t/" + file).payload(bytes).build());
        Path pulled = tmp.resolve("pulled");
        CommandTestSupport.Result pull = run("pull", to, pulled.toString(), "--progress", "none");
        assertEquals(1, pull.exitCode());
        assertTrue(pull.err().contains(to + "/" + file + ": the download failed its checks (" + file
            + ": file CRC32C is "), pull.err());
        assertFalse(Files.exists(pulled.resolve(DatasetManifest.FILE_NAME)));
        assertFalse(Files.exists(pulled.resolve(file)));
        assertEquals(2, CommandTestSupport.run("verify", pulled.toString()).exitCode(), "not a dataset");
        assertSecretNeverPrinted();
    }

    @Test
    void convertToAnS3OutputConvertsIntoStagingThenPushes() throws IOException {
        Path input = ConvertFixtures.imageFolder(tmp.resolve("images"));
        Path staging = tmp.resolve("staging");
        String to = "s3://" + bucket + "/converted";
        CommandTestSupport.Result converted = run("convert", input.toString(), "-o", to, "--staging",
            staging.toString(), "--shorter-side", "32", "--shard-size", "4KiB", "--progress", "none", "--workers", "2");
        assertEquals(0, converted.exitCode(), converted.err());
        assertTrue(converted.out().contains("pushed " + staging + " to " + to), converted.out());
        assertTrue(converted.out().contains("deleted the staging directory"), converted.out());
        assertFalse(Files.exists(staging));

        Path pulled = tmp.resolve("pulled");
        assertEquals(0, run("pull", to, pulled.toString(), "--progress", "none").exitCode());
        assertEquals(0, CommandTestSupport.run("verify", pulled.toString()).exitCode());
        assertEquals(ConvertFixtures.GOOD, Json.readManifest(pulled).records());
        assertSecretNeverPrinted();
    }

    @Test
    void aSecondConvertToTheSameDestinationWaitsItsTurnForTheDefaultStagingDirectory() throws IOException {
        Path input = ConvertFixtures.imageFolder(tmp.resolve("images"));
        String to = "s3://" + bucket + "/held-" + System.nanoTime();
        Path staging = StagingDirectory.of(S3Location.parse(to));
        String[] args = {"convert", input.toString(), "-o", to, "--shorter-side", "32", "--shard-size", "4KiB",
            "--progress", "none", "--workers", "2"};
        try (DatasetWriteLock first = DatasetWriteLock.hold(staging, "pinshard convert")) {
            CommandTestSupport.Result second = run(args);
            assertEquals(PinshardCommand.EXIT_USAGE, second.exitCode(), second.out());
            assertTrue(second.err().contains("pinshard convert (pid " + ProcessHandle.current().pid()
                + ", this process) is writing " + staging), second.err());
            assertTrue(second.err().contains("it holds the lock file " + first.file()), second.err());
            try (var names = Files.list(staging)) {
                assertEquals(List.of(DatasetWriteLock.FILE_NAME), names.map(p -> p.getFileName().toString()).toList(),
                    "refused before anything was written");
            }
        }
        CommandTestSupport.Result alone = run(args);
        assertEquals(0, alone.exitCode(), alone.err());
        assertTrue(alone.out().contains("deleted the staging directory " + staging), alone.out());
        assertSecretNeverPrinted();
    }

    @Test
    void aConvertWhosePushFailedKeepsItsStagingAndTheSameCommandFinishesIt() throws IOException {
        Path input = ConvertFixtures.imageFolder(tmp.resolve("images"));
        Path staging = tmp.resolve("staging");
        String to = "s3://" + bucket + "-later/converted";
        String[] args = {"convert", input.toString(), "-o", to, "--staging", staging.toString(), "--shorter-side",
            "32", "--shard-size", "4KiB", "--progress", "none", "--workers", "2"};
        CommandTestSupport.Result failed = run(args);
        assertEquals(1, failed.exitCode(), failed.out());
        assertTrue(failed.err().contains("s3://" + bucket + "-later/converted/manifest.json"), failed.err());
        assertTrue(failed.err().contains("stays in " + staging), failed.err());
        assertTrue(Files.exists(staging.resolve(DatasetManifest.FILE_NAME)));

        try (S3Client s3 = S3Clients.create(S3TestSettings.of(server).build())) {
            s3.createBucket(b -> b.bucket(bucket + "-later"));
        }
        CommandTestSupport.Result resumed = run(args);
        assertEquals(0, resumed.exitCode(), resumed.err());
        assertTrue(resumed.out().contains("already complete: "), resumed.out());
        assertTrue(resumed.out().contains("manifest written last"), resumed.out());
        assertFalse(Files.exists(staging));
        assertSecretNeverPrinted();
    }

    @Test
    void badDestinationsAreUsageErrors() throws IOException {
        Path local = tmp.resolve("local");
        CommandTestSupport.writeDataset(local, 5);
        assertEquals(2, run("push", local.toString(), "/not/s3", "--progress", "none").exitCode());
        assertEquals(2, run("push", tmp.resolve("nothing").toString(), "s3://" + bucket + "/x", "--progress", "none")
            .exitCode());
        assertEquals(2, run("push", local.toString(), "s3://" + bucket + "/x", "--part-size", "1MiB").exitCode());
        assertTrue(CommandTestSupport.run("push", "--help").out().contains("AWS_ACCESS_KEY_ID"));
    }
}
