package io.pinshard.reader;

import static java.nio.ByteOrder.LITTLE_ENDIAN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.format.IndexEntryDescriptor;
import io.pinshard.format.Json;
import io.pinshard.format.ShardFooterDescriptor;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Open checks frames only; each shard's index is checked on its first use. A corrupt index must still be
 * refused before any record of its shard is served, while the other shards keep serving theirs.
 */
class LazyIndexCheckTest {
    static final int BAD = 2;

    @TempDir
    Path dir;
    String badShard;
    Dataset dataset;

    @BeforeEach
    void write() throws IOException {
        TestImages.writeDataset(dir, 60, 2048); // several shards of a few records each
        badShard = Json.readManifest(dir).shards().get(BAD).file();
    }

    private void readEveryRecordOfEveryShardBut(int skipped) {
        RecordView view = new RecordView();
        for (int s = 0; s < dataset.shardCount(); s++) {
            if (s == skipped) {
                continue;
            }
            for (long r = dataset.firstRecordOf(s); r < dataset.firstRecordOf(s) + dataset.shard(s).recordCount(); r++) {
                assertEquals(r, dataset.record(r, view).globalRecord());
            }
        }
    }

    /** Every record of the bad shard is refused with {@code kind}, naming dataset, shard and {@code namedRecord}. */
    private void everyRecordOfTheBadShardIsRefused(Kind kind, long namedRecord) {
        long first = dataset.firstRecordOf(BAD);
        long count = dataset.firstRecordOf(BAD + 1) - first;
        assertTrue(count > 1, "the bad shard holds several records");
        RecordView view = new RecordView();
        for (long r = first; r < first + count; r++) {
            long record = r;
            ShardFormatException e = assertThrows(ShardFormatException.class, () -> dataset.record(record, view));
            assertEquals(kind, e.kind(), e.getMessage());
            assertEquals(namedRecord, e.record(), e.getMessage());
            assertTrue(e.getMessage().startsWith("dataset " + dir), e.getMessage());
            assertTrue(e.getMessage().contains(badShard), e.getMessage());
        }
        assertThrows(ShardFormatException.class, () -> dataset.shard(BAD), "nor is the shard handed out unchecked");
    }

    @Test
    void aBadEntryOpensButIsRefusedBeforeItsShardServesARecord() throws IOException {
        ShardSurgery surgery = new ShardSurgery(dir, badShard);
        surgery.bytes.putInt(surgery.entry(1) + IndexEntryDescriptor.LABEL_OFFSET, 77, LITTLE_ENDIAN); // 3 classes
        surgery.seal(); // index CRC matches: only the entry check can tell
        try (Dataset opened = Dataset.open(dir)) {
            dataset = opened;
            readEveryRecordOfEveryShardBut(BAD);
            everyRecordOfTheBadShardIsRefused(Kind.BAD_INDEX_ENTRY, 1);
            assertTrue(assertThrows(ShardFormatException.class, () -> dataset.record(dataset.firstRecordOf(BAD) + 1,
                new RecordView())).getMessage().contains("record 1"));
            readEveryRecordOfEveryShardBut(BAD); // the others still read
        }
    }

    @Test
    void anIndexWhoseChecksumFailsOpensButIsRefusedAtFirstUse() throws IOException {
        ShardSurgery surgery = new ShardSurgery(dir, badShard);
        surgery.seal();
        int entry = surgery.entry(0) + IndexEntryDescriptor.LABEL_OFFSET;
        surgery.bytes.putInt(entry, (surgery.bytes.getInt(entry, LITTLE_ENDIAN) + 1) % 3, LITTLE_ENDIAN); // still valid
        surgery.writeAndFixManifest(surgery.bytes.byteArray()); // whole-file CRC agrees, index CRC does not
        try (Dataset opened = Dataset.open(dir)) {
            dataset = opened;
            everyRecordOfTheBadShardIsRefused(Kind.CHECKSUM_MISMATCH, -1);
            readEveryRecordOfEveryShardBut(BAD);
        }
        // Opened without the index CRC, the same shard serves (its entries are all valid).
        try (Dataset opened = Dataset.open(dir, false)) {
            dataset = opened;
            readEveryRecordOfEveryShardBut(-1);
        }
    }

    @Test
    void aBadFrameIsStillRefusedAtOpen() throws IOException {
        ShardSurgery surgery = new ShardSurgery(dir, badShard);
        surgery.bytes.putLong(surgery.footer() + ShardFooterDescriptor.RECORD_COUNT_OFFSET, 1L << 40, LITTLE_ENDIAN);
        surgery.seal();
        ShardFormatException e = assertThrows(ShardFormatException.class, () -> Dataset.open(dir).close());
        assertTrue(e.getMessage().contains(badShard), e.getMessage());
    }

    @Test
    void largestSizesGrowAsShardsAreFirstUsed() {
        try (Dataset opened = Dataset.open(dir)) {
            dataset = opened;
            assertEquals(0, dataset.maxDecodedBytes(Codec.RAW), "nothing checked yet");
            readEveryRecordOfEveryShardBut(-1);
            assertEquals(7 * 10 * 3, dataset.maxDecodedBytes(Codec.RAW), "record 34: 7x10x3, raw");
        }
    }
}
