package io.pinshard.s3.transfer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.fixtures.TestDatasets;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.s3.S3Clients;
import io.pinshard.s3.S3Location;
import io.pinshard.s3.S3TestSettings;
import io.pinshard.testkit.S3ServerExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jclouds.blobstore.domain.Blob;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/** Push and pull against a real S3 server on loopback (s3proxy), with the faults a kill or a tampered store leave. */
@org.junit.jupiter.api.Tag("process")
class DatasetPushPullTest {
    private static final long MIB = 1L << 20;
    private static final AtomicInteger BUCKETS = new AtomicInteger();
    @RegisterExtension
    static final S3ServerExtension server = new S3ServerExtension();

    @TempDir
    Path tmp;

    private S3Client s3;
    private String bucket;

    @BeforeEach
    void newBucket() {
        s3 = S3Clients.create(S3TestSettings.of(server).maxAttempts(1).build());
        bucket = "push-test-" + BUCKETS.incrementAndGet();
        s3.createBucket(b -> b.bucket(bucket));
    }

    @AfterEach
    void closeClient() {
        s3.close();
    }

    private S3Location at(String prefix) {
        return S3Location.parse("s3://" + bucket + "/" + prefix);
    }

    private Path smallDataset(String name, long seed) throws IOException {
        return TestDatasets.write(tmp.resolve(name), 40, 8, 2048, seed);
    }

    private static PushOptions options() {
        return PushOptions.defaults().withThreads(3);
    }

    private static void assertSameFiles(Path expected, Path actual) throws IOException {
        List<Path> want = TestDatasets.files(expected);
        List<Path> got = TestDatasets.files(actual);
        assertEquals(want.stream().map(Path::getFileName).toList(), got.stream().map(Path::getFileName).toList());
        for (int i = 0; i < want.size(); i++) {
            assertArrayEquals(Files.readAllBytes(want.get(i)), Files.readAllBytes(got.get(i)), want.get(i).toString());
        }
    }

    @Test
    void pushThenPullIsByteForByteAndVerifiesAndTheManifestComesLast() throws IOException {
        Path local = smallDataset("local", 1);
        int shards = Json.readManifest(local).shards().size();
        assertTrue(shards >= 5, "want several shards: " + shards);
        RecordingS3Client recording = new RecordingS3Client(s3);
        PushResult pushed = new DatasetPush(recording, options(), TransferProgress.NONE).push(local, at("sets/a"));
        assertEquals(shards, pushed.uploaded());
        assertEquals(0, pushed.skipped());
        assertTrue(pushed.manifestWritten());
        assertEquals(shards + 1, recording.visible.size());
        assertEquals("sets/a/" + DatasetManifest.FILE_NAME, recording.visible.get(shards), recording.visible.toString());

        Path pulled = tmp.resolve("pulled");
        PullResult result = new DatasetPull(s3, PullOptions.defaults(), TransferProgress.NONE).pull(at("sets/a"), pulled);
        assertEquals(shards, result.downloaded());
        assertSameFiles(local, pulled);
        assertEquals(List.of(), new DatasetVerifier().verify(pulled));
        assertFalse(Files.exists(pulled.resolve(DatasetPull.STAGING)));

        // Both again: nothing to send or fetch.
        PushResult again = new DatasetPush(s3, options(), TransferProgress.NONE).push(local, at("sets/a"));
        assertEquals(shards, again.skipped());
        assertFalse(again.manifestWritten());
        PullResult pulledAgain = new DatasetPull(s3, PullOptions.defaults(), TransferProgress.NONE)
            .pull(at("sets/a"), pulled);
        assertEquals(shards, pulledAgain.skipped());
        assertFalse(pulledAgain.manifestWritten());
    }

    @Test
    void anInterruptedPushLeavesNoManifestAndTheNextOneSendsOnlyWhatIsMissing() throws IOException {
        Path local = smallDataset("local", 2);
        int shards = Json.readManifest(local).shards().size();
        RecordingS3Client failing = new RecordingS3Client(s3, 3);
        TransferException cut = assertThrows(TransferException.class,
            () -> new DatasetPush(failing, options().withThreads(1), TransferProgress.NONE).push(local, at("p")));
        assertTrue(cut.getMessage().contains("s3://" + bucket + "/p/shard-"), cut.getMessage());
        assertTrue(cut.getMessage().contains("injected fault"), cut.getMessage());
        assertEquals(3, failing.visible.size());
        assertFalse(server.blobStore().blobExists(bucket, "p/" + DatasetManifest.FILE_NAME));

        RecordingS3Client recording = new RecordingS3Client(s3);
        PushResult resumed = new DatasetPush(recording, options(), TransferProgress.NONE).push(local, at("p"));
        assertEquals(3, resumed.skipped());
        assertEquals(shards - 3, resumed.uploaded());
        assertEquals(shards - 3 + 1, recording.visible.size());
        assertEquals("p/" + DatasetManifest.FILE_NAME, recording.visible.get(recording.visible.size() - 1));
        Path pulled = tmp.resolve("pulled");
        new DatasetPull(s3, PullOptions.defaults(), TransferProgress.NONE).pull(at("p"), pulled);
        assertSameFiles(local, pulled);
    }

    @Test
    void largeShardsGoUpInPartsAndAnInterruptedUploadIsResumedPartByPart() throws IOException {
        // 28 images of 768 KiB in two shards of about 10.5 MiB: 3 parts of at most 5 MiB each.
        Path local = TestDatasets.write(tmp.resolve("large"), 28, 512, 11 * MIB, 3);
        DatasetManifest manifest = Json.readManifest(local);
        assertTrue(manifest.shards().stream().allMatch(s -> s.bytes() > 10 * MIB), manifest.shards().toString());
        int shards = manifest.shards().size();
        PushOptions parts = options().withThreads(1).withMultipart(6 * MIB, 5 * MIB);
        RecordingS3Client failing = new RecordingS3Client(s3, 2);
        assertThrows(TransferException.class, () -> new DatasetPush(failing, parts, TransferProgress.NONE)
            .push(local, at("big")));
        assertEquals(List.of(), failing.visible);
        assertEquals(2, failing.parts.size());
        assertEquals(1, s3.listMultipartUploads(b -> b.bucket(bucket)).uploads().size());

        RecordingS3Client recording = new RecordingS3Client(s3);
        PushResult resumed = new DatasetPush(recording, parts, TransferProgress.NONE).push(local, at("big"));
        assertEquals(2, resumed.resumedParts(), "the two parts sent before the fault are reused");
        assertEquals(shards * 3 - 2, recording.parts.size(), recording.parts.toString());
        assertEquals(shards, resumed.uploaded());
        assertEquals(0, s3.listMultipartUploads(b -> b.bucket(bucket)).uploads().size());
        assertEquals("big/" + DatasetManifest.FILE_NAME, recording.visible.get(shards));

        Path pulled = tmp.resolve("pulled");
        new DatasetPull(s3, PullOptions.defaults(), TransferProgress.NONE).pull(at("big"), pulled);
        assertSameFiles(local, pulled);
        assertEquals(List.of(), DatasetVerifier.checksumsOnly().verify(pulled));
    }

    @Test
    void aDifferentDatasetAtTheDestinationIsRefusedUnlessForcedAndItsStaleShardsAreReportedOrDeleted()
        throws IOException {
        Path first = TestDatasets.write(tmp.resolve("first"), 60, 8, 2048, 4);
        Path second = smallDataset("second", 5);
        int firstShards = Json.readManifest(first).shards().size();
        int secondShards = Json.readManifest(second).shards().size();
        assertTrue(firstShards > secondShards);
        new DatasetPush(s3, options(), TransferProgress.NONE).push(first, at("d"));
        TransferException refused = assertThrows(TransferException.class,
            () -> new DatasetPush(s3, options(), TransferProgress.NONE).push(second, at("d")));
        assertTrue(refused.getMessage().contains("s3://" + bucket + "/d/manifest.json already holds a different dataset"),
            refused.getMessage());
        assertTrue(refused.getMessage().contains("60 records"), refused.getMessage());

        PushResult forced = new DatasetPush(s3, options().withForce(true), TransferProgress.NONE).push(second, at("d"));
        assertEquals(firstShards - secondShards, forced.stale().size(), forced.stale().toString());
        assertEquals(secondShards, forced.uploaded(), "same names, other bytes: every shard is replaced");
        PushResult cleaned = new DatasetPush(s3, options().withDeleteStale(true), TransferProgress.NONE)
            .push(second, at("d"));
        assertEquals(firstShards - secondShards, cleaned.deleted().size());
        assertEquals(List.of(), cleaned.stale());
        Path pulled = tmp.resolve("pulled");
        new DatasetPull(s3, PullOptions.defaults(), TransferProgress.NONE).pull(at("d"), pulled);
        assertSameFiles(second, pulled);
    }

    @Test
    void aBrokenLocalDatasetIsNotPushed() throws IOException {
        Path local = smallDataset("local", 6);
        Path shard = local.resolve(Json.readManifest(local).shards().get(1).file());
        byte[] bytes = Files.readAllBytes(shard);
        bytes[bytes.length / 2] ^= 1;
        Files.write(shard, bytes);
        TransferException refused = assertThrows(TransferException.class,
            () -> new DatasetPush(s3, options(), TransferProgress.NONE).push(local, at("broken")));
        assertTrue(refused.getMessage().contains("does not verify"), refused.getMessage());
        assertTrue(refused.getMessage().contains(shard.getFileName().toString()), refused.getMessage());
        assertEquals(0, s3.listObjectsV2(b -> b.bucket(bucket)).keyCount());
        // With structure checks only, the whole-file CRC taken while uploading still stops it before the PUT.
        TransferException crc = assertThrows(TransferException.class, () -> new DatasetPush(s3,
            options().withThreads(1).withCheck(PushOptions.LocalCheck.STRUCTURE), TransferProgress.NONE)
            .push(local, at("broken")));
        assertTrue(crc.getMessage().contains("CRC32C"), crc.getMessage());
        assertFalse(server.blobStore().blobExists(bucket, "broken/" + shard.getFileName()));
        assertFalse(server.blobStore().blobExists(bucket, "broken/" + DatasetManifest.FILE_NAME));
    }

    @Test
    void aShardTamperedInTheStoreFailsThePullNamingTheObjectAndNothingIsRenamedIntoPlace() throws IOException {
        Path local = smallDataset("local", 7);
        new DatasetPush(s3, options(), TransferProgress.NONE).push(local, at("t"));
        String file = Json.readManifest(local).shards().get(2).file();
        Blob blob = server.blobStore().getBlob(bucket, "t/" + file);
        byte[] bytes = blob.getPayload().openStream().readAllBytes();
        bytes[bytes.length / 3] ^= 0x40;
        server.blobStore().putBlob(bucket, server.blobStore().blobBuilder("t/" + file).payload(bytes).build());

        Path pulled = tmp.resolve("pulled");
        TransferException tampered = assertThrows(TransferException.class,
            () -> new DatasetPull(s3, PullOptions.defaults().withThreads(1), TransferProgress.NONE)
                .pull(at("t"), pulled));
        assertTrue(tampered.getMessage().startsWith("s3://" + bucket + "/t/" + file + ": "), tampered.getMessage());
        assertTrue(tampered.getMessage().contains("CRC32C is "), tampered.getMessage());
        assertFalse(Files.exists(pulled.resolve(file)));
        assertFalse(Files.exists(pulled.resolve(DatasetPull.STAGING).resolve(file)));
        assertFalse(Files.exists(pulled.resolve(DatasetManifest.FILE_NAME)));

        // Cut short in the store: refused from the response's length, before anything is written.
        byte[] shorter = java.util.Arrays.copyOf(bytes, bytes.length - 8);
        server.blobStore().putBlob(bucket, server.blobStore().blobBuilder("t/" + file).payload(shorter).build());
        TransferException cut = assertThrows(TransferException.class,
            () -> new DatasetPull(s3, PullOptions.defaults(), TransferProgress.NONE).pull(at("t"), pulled));
        assertTrue(cut.getMessage().contains("s3://" + bucket + "/t/" + file + ": object holds " + shorter.length
            + " bytes, the manifest says " + bytes.length), cut.getMessage());

        server.blobStore().removeBlob(bucket, "t/" + file);
        TransferException missing = assertThrows(TransferException.class,
            () -> new DatasetPull(s3, PullOptions.defaults(), TransferProgress.NONE).pull(at("t"), pulled));
        assertTrue(missing.getMessage().contains("s3://" + bucket + "/t/" + file + ": missing"), missing.getMessage());
        assertFalse(Files.exists(pulled.resolve(DatasetManifest.FILE_NAME)));
    }

    @Test
    void aRemoteManifestNamingThePullsOwnFilesIsRefused() throws IOException {
        Path local = smallDataset("local", 10);
        new DatasetPush(s3, options(), TransferProgress.NONE).push(local, at("n"));
        String manifest = Files.readString(local.resolve(DatasetManifest.FILE_NAME));
        for (String name : List.of(DatasetPull.STAGING, DatasetManifest.FILE_NAME)) {
            byte[] hostile = manifest.replace("shard-00001.pinshard", name).getBytes(StandardCharsets.UTF_8);
            s3.putObject(b -> b.bucket(bucket).key("n/" + DatasetManifest.FILE_NAME), RequestBody.fromBytes(hostile));
            Path pulled = tmp.resolve("pulled-" + name);
            TransferException refused = assertThrows(TransferException.class,
                () -> new DatasetPull(s3, PullOptions.defaults(), TransferProgress.NONE).pull(at("n"), pulled));
            assertTrue(refused.getMessage().contains("lists a shard named " + name), refused.getMessage());
            assertFalse(Files.exists(pulled));
        }
    }

    @Test
    void aPullResumesKeepingTheShardsThatCheckAndReplacingTheOnesThatDoNot() throws IOException {
        Path local = smallDataset("local", 8);
        List<DatasetManifest.ShardEntry> shards = Json.readManifest(local).shards();
        new DatasetPush(s3, options(), TransferProgress.NONE).push(local, at("r"));
        Path pulled = tmp.resolve("pulled");
        new DatasetPull(s3, PullOptions.defaults(), TransferProgress.NONE).pull(at("r"), pulled);
        // As a kill would leave it: no manifest, one shard gone, one damaged, a partial download in staging.
        Files.delete(pulled.resolve(DatasetManifest.FILE_NAME));
        Files.delete(pulled.resolve(shards.get(0).file()));
        Path damaged = pulled.resolve(shards.get(1).file());
        byte[] bytes = Files.readAllBytes(damaged);
        bytes[100] ^= 1;
        Files.write(damaged, bytes);
        Files.createDirectories(pulled.resolve(DatasetPull.STAGING));
        Files.write(pulled.resolve(DatasetPull.STAGING).resolve(shards.get(2).file()), new byte[10]);

        PullResult resumed = new DatasetPull(s3, PullOptions.defaults(), TransferProgress.NONE).pull(at("r"), pulled);
        assertEquals(2, resumed.downloaded());
        assertEquals(shards.size() - 2, resumed.skipped());
        assertSameFiles(local, pulled);

        // Another dataset in the directory is refused unless forced.
        Path other = smallDataset("other", 9);
        new DatasetPush(s3, options(), TransferProgress.NONE).push(other, at("o"));
        TransferException refused = assertThrows(TransferException.class,
            () -> new DatasetPull(s3, PullOptions.defaults(), TransferProgress.NONE).pull(at("o"), pulled));
        assertTrue(refused.getMessage().contains("already holds a different dataset"), refused.getMessage());
        new DatasetPull(s3, PullOptions.defaults().withForce(true), TransferProgress.NONE).pull(at("o"), pulled);
        assertSameFiles(other, pulled);
    }
}
