package io.pinshard.s3.transfer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.fixtures.TestDatasets;
import io.pinshard.format.DatasetManifest;
import io.pinshard.s3.S3Clients;
import io.pinshard.s3.S3Location;
import io.pinshard.s3.S3Settings.ChunkedEncoding;
import io.pinshard.s3.S3TestSettings;
import io.pinshard.testkit.S3ServerExtension;
import io.pinshard.testkit.S3rverTestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * Push checks what each store kept, not only that it answered 200: a store that keeps less than it was sent (a
 * client that truncates bodies in front of s3proxy) or keeps the aws-chunked framing (node's s3rver over http) fails
 * the push naming the object, with no manifest left over the shards; auto chunked encoding then pushes again
 * without it.
 */
@org.junit.jupiter.api.Tag("process")
class DatasetPushLandingTest {
    private static final long MIB = 1L << 20;
    private static final String BUCKET = "landing";

    @RegisterExtension
    static final S3ServerExtension s3proxy = new S3ServerExtension();
    private static S3Client real;

    @TempDir
    Path tmp;

    @BeforeAll
    static void startS3proxy() throws Exception {
        real = S3Clients.create(S3TestSettings.of(s3proxy).build());
        real.createBucket(b -> b.bucket(BUCKET));
    }

    @AfterAll
    static void stopS3proxy() throws Exception {
        real.close();
    }

    private Path dataset(String name) throws Exception {
        return TestDatasets.write(tmp.resolve(name), 30, 16, 4096, 5);
    }

    @Test
    void aShardKeptShortFailsThePushNamingItAndItIsSentAgainByTheNextPush() throws Exception {
        Path dir = dataset("short");
        S3Location to = S3Location.parse("s3://" + BUCKET + "/short");
        RecordingS3Client shortStore = new RecordingS3Client(real).keepShort("shard-00001.pinshard");
        PushOptions oneByOne = PushOptions.defaults().withThreads(1);
        StoredObjectMismatch e = assertThrows(StoredObjectMismatch.class,
            () -> new DatasetPush(shortStore, oneByOne, TransferProgress.NONE).push(dir, to));
        long size = Files.size(dir.resolve("shard-00001.pinshard"));
        assertEquals(to.uri("shard-00001.pinshard"), e.object());
        assertTrue(e.getMessage().contains("the store keeps " + (size - 100) + " bytes, " + size + " were sent"),
            e.getMessage());
        assertFalse(e.keptAwsChunkedFraming(), e.getMessage());
        assertFalse(holds(real, to.key(DatasetManifest.FILE_NAME)), "no manifest over a short shard");

        // A rerun skips only what landed whole (shard 0): the short shard 1 goes up again, then the rest.
        PushResult rerun = new DatasetPush(real, oneByOne, TransferProgress.NONE).push(dir, to);
        int shards = TestDatasets.files(dir).size() - 1;
        assertEquals(1, rerun.skipped(), rerun.toString());
        assertEquals(shards - 1, rerun.uploaded(), rerun.toString());
        assertEquals(size, real.headObject(b -> b.bucket(BUCKET).key(to.key("shard-00001.pinshard")))
            .contentLength());
    }

    @Test
    void aManifestKeptShortIsDeletedAgainAndFailsThePush() throws Exception {
        Path dir = dataset("manifest");
        S3Location to = S3Location.parse("s3://" + BUCKET + "/manifest");
        RecordingS3Client shortStore = new RecordingS3Client(real).keepShort(DatasetManifest.FILE_NAME);
        StoredObjectMismatch e = assertThrows(StoredObjectMismatch.class,
            () -> new DatasetPush(shortStore, PushOptions.defaults(), TransferProgress.NONE).push(dir, to));
        assertEquals(to.uri(DatasetManifest.FILE_NAME), e.object());
        assertTrue(e.getMessage().contains("deleted again"), e.getMessage());
        assertFalse(holds(real, to.key(DatasetManifest.FILE_NAME)), "the short manifest is taken down");
    }

    @Test
    void s3rverOverHttpKeepsChunkFramingWhichFailsAPushAndAutoPushesAgainWithoutIt() throws Exception {
        Optional<String> why = S3rverTestServer.unavailable();
        assumeTrue(why.isEmpty(), () -> "skipped: " + why.orElse(""));
        // One shard of two 5 MiB parts and small single-PUT ones: both kinds of upload keep the framing.
        Path dir = TestDatasets.write(tmp.resolve("s3rver"), 130, 128, 5 * MIB + MIB / 2, 7);
        PushOptions options = PushOptions.defaults().withMultipart(5 * MIB, 5 * MIB);
        try (S3rverTestServer server = S3rverTestServer.start(tmp.resolve("server"), false, BUCKET)) {
            S3Location on = S3Location.parse("s3://" + BUCKET + "/on");
            try (S3Client chunked = S3Clients.create(S3TestSettings.of(server).chunkedEncoding(ChunkedEncoding.ON).build())) {
                StoredObjectMismatch e = assertThrows(StoredObjectMismatch.class,
                    () -> new DatasetPush(chunked, options, TransferProgress.NONE).push(dir, on));
                assertTrue(e.keptAwsChunkedFraming(), e.getMessage());
                assertTrue(e.getMessage().contains(";chunk-signature="), e.getMessage());
            }
            assertFalse(server.holds(BUCKET, "on/" + DatasetManifest.FILE_NAME));

            S3Location auto = S3Location.parse("s3://" + BUCKET + "/auto");
            List<String> notices = new CopyOnWriteArrayList<>();
            PushResult pushed = ChunkedFallbackPush.push(S3TestSettings.of(server).chunkedEncoding(ChunkedEncoding.AUTO)
                .build(), options, TransferProgress.NONE, dir, auto, notices::add);
            assertEquals(1, notices.size(), notices.toString());
            assertTrue(notices.get(0).contains("pushing again with chunked encoding off"), notices.toString());
            assertTrue(pushed.manifestWritten());
            for (Path local : TestDatasets.files(dir)) {
                assertArrayEquals(Files.readAllBytes(local), server.stored(BUCKET, "auto/" + local.getFileName()),
                    local.getFileName().toString());
            }

            notices.clear();
            S3Location off = S3Location.parse("s3://" + BUCKET + "/off");
            AtomicLong progressBytes = new AtomicLong();
            TransferProgress counting = new TransferProgress() {
                @Override
                public void bytes(long count) {
                    progressBytes.addAndGet(count);
                }
            };
            PushResult plain = ChunkedFallbackPush.push(S3TestSettings.of(server).chunkedEncoding(ChunkedEncoding.OFF)
                .build(), options, counting, dir, off, notices::add);
            assertEquals(List.of(), notices);
            assertTrue(server.holds(BUCKET, "off/" + DatasetManifest.FILE_NAME));
            // Signed whole, each body is read twice by the SDK (hashed, then sent): the progress counts it once.
            assertEquals(plain.uploadedBytes(), progressBytes.get());
        }
    }

    private static boolean holds(S3Client s3, String key) {
        try {
            s3.headObject(b -> b.bucket(BUCKET).key(key));
            return true;
        } catch (NoSuchKeyException e) {
            return false;
        }
    }
}
