package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.fixtures.ChildJvm;
import io.pinshard.fixtures.TestDatasets;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.s3.S3Clients;
import io.pinshard.s3.S3TestSettings;
import io.pinshard.testkit.S3ServerExtension;
import io.pinshard.testkit.S3TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jclouds.blobstore.domain.StorageMetadata;
import org.jclouds.blobstore.options.ListContainerOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A push SIGKILLed midway (no finally block, no shutdown hook runs) leaves no manifest at the destination, and the
 * same command run again sends only the shards that are missing and gives a dataset that pulls and verifies.
 */
@org.junit.jupiter.api.Tag("process")
class PushKillTest {
    @RegisterExtension
    static final S3ServerExtension server = new S3ServerExtension();

    @TempDir
    Path tmp;

    private static int shardObjects(String bucket) {
        int count = 0;
        for (StorageMetadata blob : server.blobStore().list(bucket, ListContainerOptions.Builder.recursive())) {
            count += blob.getName().endsWith(".pinshard") ? 1 : 0;
        }
        return count;
    }

    @Test
    void aPushKilledMidwayLeavesNoManifestAndTheRerunSendsOnlyWhatIsMissing() throws Exception {
        String bucket = "killed";
        try (S3Client s3 = S3Clients.create(S3TestSettings.of(server).build())) {
            s3.createBucket(b -> b.bucket(bucket));
        }
        // About 24 shards of 192 KiB sent one at a time: the kill lands with most of them still to go.
        Path local = TestDatasets.write(tmp.resolve("local"), 96, 128, 192 << 10, 11);
        int shards = Json.readManifest(local).shards().size();
        Path credentials = tmp.resolve("credentials");
        Files.writeString(credentials, "[default]\naws_access_key_id = " + S3TestServer.ACCESS_KEY
            + "\naws_secret_access_key = " + S3TestServer.SECRET_KEY + "\n");
        String to = "s3://" + bucket + "/k";
        List<String> s3Options = List.of("--s3-endpoint", server.endpoint().toString(), "--s3-path-style",
            "--s3-region", "us-east-1", "--s3-credentials-file", credentials.toString());
        List<String> args = new ArrayList<>(List.of("push", local.toString(), to, "--threads", "1", "--check",
            "structure", "--progress", "none"));
        args.addAll(s3Options);
        Process child = new ProcessBuilder(ChildJvm.command(ChildJvm.pinshardFlags(), PinshardCommand.class,
            args.toArray(String[]::new))).redirectErrorStream(true).redirectOutput(tmp.resolve("child.log").toFile())
            .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (shardObjects(bucket) < 4 && child.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
        assertTrue(child.isAlive(), "the push was still running when 4 shards were up: "
            + Files.readString(tmp.resolve("child.log")));
        child.destroyForcibly(); // SIGKILL on Linux
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        Thread.sleep(200); // a PUT whose body had arrived whole may still be being stored
        int before = shardObjects(bucket);
        assertTrue(before < shards, before + " of " + shards);
        assertFalse(server.blobStore().blobExists(bucket, "k/" + DatasetManifest.FILE_NAME));

        List<String> rerun = new ArrayList<>(args);
        CommandTestSupport.Result resumed = CommandTestSupport.run(rerun.toArray(String[]::new));
        assertEquals(0, resumed.exitCode(), resumed.err());
        assertTrue(resumed.out().contains((shards - before) + " shard(s) uploaded"), resumed.out());
        assertTrue(resumed.out().contains(before + " already there"), resumed.out());

        List<String> pull = new ArrayList<>(List.of("pull", to, tmp.resolve("pulled").toString(), "--progress", "none"));
        pull.addAll(s3Options);
        assertEquals(0, CommandTestSupport.run(pull.toArray(String[]::new)).exitCode());
        assertEquals(0, CommandTestSupport.run("verify", tmp.resolve("pulled").toString()).exitCode());
    }
}
