package io.pinshard.loader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.format.ShardFormatException;
import io.pinshard.loader.options.ErrorPolicy;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.nio.file.Path;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CorruptRecordTest {
    private static final int BAD = 13;

    @TempDir
    Path temp;

    /** A raw dataset whose record 13 has one payload byte flipped (the index and its CRC untouched). */
    private Path flippedPayload() throws Exception {
        Path dir = TestDatasets.write(temp.resolve("flipped"), 30, Codec.RAW, 3, 1 << 20);
        TestDatasets.flipPayloadByte(dir, BAD, length -> 5, 0x40);
        return dir;
    }

    @Test
    void crcMismatchFailsTheIterationNamingShardAndRecord() throws Exception {
        Path dir = flippedPayload();
        try (Dataset dataset = Dataset.open(dir);
             Loader loader = Loader.open(dataset, TestDatasets.small().checkCrc(true).build());
             Epoch epoch = loader.epoch(0)) {
            LoaderException e = assertThrows(LoaderException.class, () -> EpochContents.of(epoch));
            ShardFormatException cause = (ShardFormatException) e.getCause();
            assertEquals(ShardFormatException.Kind.CHECKSUM_MISMATCH, cause.kind());
            assertTrue(e.getMessage().contains("shard-00000.pinshard") && e.getMessage().contains("record " + BAD + ":"),
                e.getMessage());
            assertTrue(e.getMessage().contains(dir.toString()), "names the dataset: " + e.getMessage());
        }
        try (Dataset dataset = Dataset.open(dir);
             Loader loader = Loader.open(dataset, TestDatasets.small().checkCrc(false).build());
             Epoch epoch = loader.epoch(0)) {
            assertEquals(30, EpochContents.of(epoch).allIds().size(), "without checking, raw bytes pass through");
        }
    }

    @Test
    void skipPolicyReplacesTheRecordDeterministicallyAndCountsIt() throws Exception {
        Path dir = flippedPayload();
        LoaderOptions options = TestDatasets.small().checkCrc(true).errorPolicy(ErrorPolicy.SKIP).build();
        EpochContents first;
        EpochContents second;
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, options)) {
            try (Epoch epoch = loader.epoch(2)) {
                first = EpochContents.of(epoch);
            }
            assertEquals(1, loader.stats().skippedRecords());
        }
        try (Dataset dataset = Dataset.open(dir);
             Loader loader = Loader.open(dataset, options.toBuilder().workers(1).build());
             Epoch epoch = loader.epoch(2)) {
            second = EpochContents.of(epoch);
        }
        first.assertSameAs(second);
        List<Long> ids = first.allIds();
        assertEquals(30, ids.size());
        assertFalse(ids.contains((long) BAD), "the corrupt record is never delivered");
    }

    @Test
    void undecodableJpegFailsOrIsSkipped() throws Exception {
        Path dir = temp.resolve("jpeg");
        try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults())) {
            for (int r = 0; r < 12; r++) {
                if (r == 5) {
                    byte[] garbage = "this is not a jpeg stream at all".getBytes();
                    writer.appendPayload(Codec.JPEG, new UnsafeBuffer(garbage), 0, garbage.length, 30, 30, 3, -1,
                        "bad.jpg");
                } else {
                    TestDatasets.append(writer, r, 30, 34, 3, Codec.JPEG);
                }
            }
            writer.finish();
        }
        try (Dataset dataset = Dataset.open(dir);
             Loader loader = Loader.open(dataset, TestDatasets.small().batchSize(3).build());
             Epoch epoch = loader.epoch(0)) {
            LoaderException e = assertThrows(LoaderException.class, () -> EpochContents.of(epoch));
            assertEquals(ShardFormatException.Kind.UNDECODABLE_PAYLOAD, ((ShardFormatException) e.getCause()).kind());
            assertTrue(e.getMessage().contains("record 5:"), e.getMessage());
        }
        try (Dataset dataset = Dataset.open(dir);
             Loader loader = Loader.open(dataset, TestDatasets.small().batchSize(3)
                 .errorPolicy(ErrorPolicy.SKIP).build())) {
            try (Epoch epoch = loader.epoch(0)) {
                List<Long> ids = EpochContents.of(epoch).allIds();
                assertEquals(12, ids.size());
                assertFalse(ids.contains(5L));
            }
            // The persistent workers go on into epoch 1, where record 5 is replaced again: wait until they have
            // filled all of it. Work filled ahead is not the trainer's until it is handed out.
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (loader.samplesFilled() < 24 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(24, loader.samplesFilled(), "the workers filled epoch 1 ahead");
            assertEquals(1, loader.stats().skippedRecords(), "only the batches handed out count");
            try (Epoch epoch = loader.epoch(1)) {
                assertFalse(EpochContents.of(epoch).allIds().contains(5L));
            }
            assertEquals(2, loader.stats().skippedRecords(), "epoch 1's replacement counts once it is handed out");
        }
    }
}
