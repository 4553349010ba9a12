package io.pinshard.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.fixtures.TestDatasets;
import io.pinshard.format.Json;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import io.pinshard.s3.transfer.DatasetPull;
import io.pinshard.s3.transfer.DatasetPush;
import io.pinshard.s3.transfer.PullOptions;
import io.pinshard.s3.transfer.PullResult;
import io.pinshard.s3.transfer.PushOptions;
import io.pinshard.s3.transfer.PushResult;
import io.pinshard.s3.transfer.TransferProgress;
import io.pinshard.testkit.S3ServerExtension;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Issue 27's request budget, counted at a small size: a push costs a fixed number of requests per shard (one PUT
 * and one HEAD when nothing is there; one HEAD when everything is), a pull one GET per shard, and a streamed
 * open reads only the manifest,
 * whatever the number of shards: its sizes and CRCs stand for a HEAD per shard.
 */
@org.junit.jupiter.api.Tag("process")
class ManyShardsRequestsTest {
    @RegisterExtension
    static final S3ServerExtension server = new S3ServerExtension().withBuckets("many");

    @TempDir
    Path tmp;

    /** A dataset of {@code shards} one-record shards (8 x 8 raw pixels), pushed; returns the push's counts. */
    private Map<String, Long> push(String name, int shards, RequestCounter counter) throws IOException {
        Path local = TestDatasets.write(tmp.resolve(name), shards, 8, 128, 27);
        assertEquals(shards, Json.readManifest(local).shards().size(), "one record per shard");
        try (S3Client s3 = S3Clients.create(S3TestSettings.of(server).interceptor(counter).build())) {
            PushResult result = new DatasetPush(s3, PushOptions.defaults().withThreads(4), TransferProgress.NONE)
                .push(local, S3Location.parse("s3://many/" + name));
            assertEquals(shards, result.uploaded());
        }
        Map<String, Long> counts = counter.snapshot();
        counter.reset();
        return counts;
    }

    @Test
    void aFirstPushCostsOnePutAndOneHeadPerShardAndAFewRequestsMore() throws IOException {
        for (int shards : new int[] {20, 200}) {
            Map<String, Long> counts = push("first-" + shards, shards, new RequestCounter());
            assertEquals(shards + 1, counts.get("PutObject"), "every shard and the manifest: " + counts);
            assertEquals(shards, counts.get("HeadObject"), "each upload checked once, no HEAD to find it absent: " + counts);
            assertEquals(2, counts.get("GetObject"), "the destination's manifest, then the one sent read back: " + counts);
            assertEquals(1, counts.get("ListObjectsV2"), "one page of keys: " + counts);
            assertEquals(2L * shards + 4, counts.values().stream().mapToLong(Long::longValue).sum(), counts.toString());
        }
    }

    @Test
    void aRepeatedPushCostsOneHeadPerShard() throws IOException {
        RequestCounter counter = new RequestCounter();
        push("again", 200, counter);
        Path local = tmp.resolve("again");
        try (S3Client s3 = S3Clients.create(S3TestSettings.of(server).interceptor(counter).build())) {
            PushResult result = new DatasetPush(s3, PushOptions.defaults().withThreads(4), TransferProgress.NONE)
                .push(local, S3Location.parse("s3://many/again"));
            assertEquals(200, result.skipped());
        }
        assertEquals(Map.of("HeadObject", 200L, "GetObject", 1L, "ListObjectsV2", 1L), counter.snapshot());
    }

    @Test
    void aPullCostsOneGetPerShard() throws IOException {
        for (int shards : new int[] {20, 200}) {
            String name = "pull-" + shards;
            push(name, shards, new RequestCounter());
            RequestCounter counter = new RequestCounter();
            try (S3Client s3 = S3Clients.create(S3TestSettings.of(server).interceptor(counter).build())) {
                PullResult result = new DatasetPull(s3, PullOptions.defaults().withThreads(4), TransferProgress.NONE)
                    .pull(S3Location.parse("s3://many/" + name), tmp.resolve("pulled-" + name));
                assertEquals(shards, result.downloaded());
            }
            assertEquals(Map.of("GetObject", shards + 1L), counter.snapshot(), "the manifest and each shard once");
        }
    }

    @Test
    void aStreamedOpenReadsTheManifestOnlyWhateverTheShardCount() throws IOException {
        for (int shards : new int[] {20, 200}) {
            String name = "open-" + shards;
            push(name, shards, new RequestCounter());
            RequestCounter counter = new RequestCounter();
            S3ShardSource source = S3ShardSource.open(S3Location.parse("s3://many/" + name),
                S3TestSettings.of(server).interceptor(counter).build(), tmp.resolve("cache-" + name), Long.MAX_VALUE);
            try (Dataset dataset = Dataset.open(source)) {
                assertEquals(shards, dataset.size());
                assertEquals(Map.of("GetObject", 1L), counter.snapshot(), "open of " + shards + " shards");
                RecordView record = dataset.record(shards - 1, new RecordView());
                assertTrue(record.payloadLength() > 0);
                assertEquals(Map.of("GetObject", 2L), counter.snapshot(), "then one GET for the shard read");
            }
        }
    }
}
