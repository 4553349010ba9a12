package io.pinshard.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.format.ShardFormatException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every single changed byte and every truncation of a shard is reported; nothing crashes or yields garbage. */
class CorruptionTest {
    @TempDir
    Path dir;
    Path shard;
    byte[] original;

    @BeforeEach
    void writeSmallDataset() throws IOException {
        TestImages.writeDataset(dir, 5, 1 << 20);
        shard = dir.resolve(Json.readManifest(dir).shards().get(0).file());
        original = Files.readAllBytes(shard);
        assertTrue(new DatasetVerifier().verify(dir).isEmpty(), "the intact dataset verifies");
    }

    @Test
    void everyFlippedByteIsReported() throws IOException {
        Payloads payloads = payloadsOf();
        for (int i = 0; i < original.length; i++) {
            byte[] corrupt = original.clone();
            corrupt[i] ^= (byte) (1 << (i % 8));
            Files.write(shard, corrupt);
            List<Problem> problems = new DatasetVerifier().verify(dir);
            assertFalse(problems.isEmpty(), "byte " + i + " flipped but verify found nothing");
            assertTrue(problems.stream().allMatch(p -> shard.getFileName().toString().equals(p.shard())),
                "problems name the shard: " + problems);
            int record = payloads.recordAt(i);
            if (record >= 0) {
                assertTrue(problems.stream().anyMatch(p -> p.record() == record),
                    "a flipped payload byte names its record " + record + ": " + problems);
            }
            readEverythingOrFailCleanly(i);
        }
        Files.write(shard, original);
        assertTrue(new DatasetVerifier().verify(dir).isEmpty());
    }

    @Test
    void everyTruncationIsReported() throws IOException {
        for (int length = 0; length < original.length; length++) {
            byte[] truncated = java.util.Arrays.copyOf(original, length);
            Files.write(shard, truncated);
            List<Problem> problems = new DatasetVerifier().verify(dir);
            assertFalse(problems.isEmpty(), "truncation to " + length + " bytes went unnoticed");
            try (Dataset ignored = Dataset.open(dir)) {
                fail("a shard truncated to " + length + " bytes opened");
            } catch (ShardFormatException e) {
                assertTrue(e.getMessage().contains(shard.getFileName().toString()), e.getMessage());
            }
        }
    }

    @Test
    void truncationIsReportedEvenWhenTheManifestAgrees() throws IOException {
        // An attacker (or a bad copy) that also rewrote the manifest: the shard itself must tell.
        for (int length = 0; length < original.length; length += 7) {
            new ShardSurgery(dir, shard.getFileName().toString()).writeAndFixManifest(java.util.Arrays.copyOf(original, length));
            try (Dataset ignored = Dataset.open(dir)) {
                fail("a shard truncated to " + length + " bytes opened");
            } catch (ShardFormatException e) {
                assertTrue(e.kind() == ShardFormatException.Kind.TRUNCATED || e.kind() == ShardFormatException.Kind.BAD_MANIFEST,
                    length + ": " + e.getMessage());
            }
        }
    }

    /** Opening and decoding every record either works or fails with a ShardFormatException: never anything else. */
    private void readEverythingOrFailCleanly(int flipped) {
        try (Dataset dataset = Dataset.open(dir)) {
            RecordView view = new RecordView();
            RecordDecoder decoder = new RecordDecoder(true);
            UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(1 << 16));
            for (long r = 0; r < dataset.size(); r++) {
                try {
                    decoder.decode(dataset.record(r, view), out, 0);
                } catch (ShardFormatException e) {
                    if (r == 0) { // the shard's first use checks its whole index: the bad entry's record, or -1 (CRC)
                        assertTrue(e.getMessage().contains("shard-00000"), "byte " + flipped + ": " + e.getMessage());
                        return;
                    }
                    assertEquals(r, e.record(), "error names the record");
                }
            }
        } catch (ShardFormatException expected) {
            assertTrue(expected.getMessage().contains("shard-00000"), "byte " + flipped + ": " + expected.getMessage());
        }
    }

    private Payloads payloadsOf() throws IOException {
        Files.write(shard, original);
        try (Dataset dataset = Dataset.open(dir)) {
            int count = (int) dataset.size();
            int[] starts = new int[count];
            int[] ends = new int[count];
            RecordView view = new RecordView();
            for (int r = 0; r < count; r++) {
                dataset.record(r, view);
                starts[r] = view.payloadOffset();
                ends[r] = view.payloadOffset() + view.payloadLength();
            }
            return new Payloads(starts, ends);
        }
    }

    private record Payloads(int[] starts, int[] ends) {
        int recordAt(int offset) {
            for (int r = 0; r < starts.length; r++) {
                if (offset >= starts[r] && offset < ends[r]) {
                    return r;
                }
            }
            return -1;
        }
    }

    @Test
    void classNamesChangedInTheManifestAreReported() throws IOException {
        Path manifest = dir.resolve(DatasetManifest.FILE_NAME);
        Files.writeString(manifest, Files.readString(manifest).replace("\"b\"", "\"x\""));
        List<Problem> problems = new DatasetVerifier().verify(dir);
        assertEquals(1, problems.size(), problems.toString());
        assertEquals(ShardFormatException.Kind.MANIFEST_MISMATCH, problems.get(0).kind());
    }

    @Test
    void manifestThatIsNotJsonIsReportedNotThrown() throws IOException {
        Files.writeString(dir.resolve(DatasetManifest.FILE_NAME), "{ not json");
        List<Problem> problems = new DatasetVerifier().verify(dir);
        assertEquals(ShardFormatException.Kind.BAD_MANIFEST, problems.get(0).kind());
    }
}
