package io.pinshard.reader;

import static java.nio.ByteOrder.LITTLE_ENDIAN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.IndexEntryDescriptor;
import io.pinshard.format.Json;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Another process rewrites a mapped shard's index in place (same size, so the mapping stays valid):
 * every read checks what it takes from the index and reports the record instead of crashing or
 * throwing a NullPointerException.
 */
class IndexChangedWhileMappedTest {
    @TempDir
    Path dir;
    Path shard;
    String shardName;

    @BeforeEach
    void write() throws IOException {
        TestImages.writeDataset(dir, 6, 1 << 20);
        shardName = Json.readManifest(dir).shards().get(0).file();
        shard = dir.resolve(shardName);
    }

    @Test
    void unknownCodecIsAShardFormatExceptionNamingShardAndRecord() throws IOException {
        try (Dataset dataset = Dataset.open(dir)) {
            poke(dataset, 3, IndexEntryDescriptor.CODEC_OFFSET, new byte[] {9});
            ShardFormatException e = assertThrows(ShardFormatException.class, () -> dataset.record(3, new RecordView()));
            assertEquals(Kind.BAD_INDEX_ENTRY, e.kind());
            assertEquals(3, e.record());
            assertTrue(e.getMessage().contains(shardName) && e.getMessage().contains(dir.toString()), e.getMessage());
            dataset.record(2, new RecordView()); // the others still read
        }
    }

    @Test
    void payloadOffsetOutsideTheFileIsRefused() throws IOException {
        try (Dataset dataset = Dataset.open(dir)) {
            poke(dataset, 1, IndexEntryDescriptor.PAYLOAD_OFFSET_OFFSET, le(1L << 40));
            ShardFormatException e = assertThrows(ShardFormatException.class, () -> dataset.record(1, new RecordView()));
            assertEquals(Kind.OFFSET_OUT_OF_BOUNDS, e.kind());
            assertEquals(1, e.record());
            poke(dataset, 2, IndexEntryDescriptor.PAYLOAD_OFFSET_OFFSET, le(dataset.shard(0).structure().indexOffset() - 8));
            ShardFormatException e2 = assertThrows(ShardFormatException.class, () -> dataset.record(2, new RecordView()));
            assertEquals(2, e2.record());
        }
    }

    @Test
    void shapeLargerThanAnyRecordAtOpenIsRefused() throws IOException {
        try (Dataset dataset = Dataset.open(dir)) {
            // lz4 record 1 now claims 60000 x 60000 x 1 (within the format's limits, and its payload
            // length within the LZ4 bound): decoding would need far more scratch than any record at open.
            poke(dataset, 1, IndexEntryDescriptor.HEIGHT_OFFSET, leInt(60_000));
            poke(dataset, 1, IndexEntryDescriptor.WIDTH_OFFSET, leInt(30_000));
            poke(dataset, 1, IndexEntryDescriptor.CHANNELS_OFFSET, new byte[] {1});
            ShardFormatException e = assertThrows(ShardFormatException.class, () -> dataset.record(1, new RecordView()));
            assertEquals(1, e.record());
            assertTrue(e.getMessage().contains(shardName), e.getMessage());
            UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(1 << 16));
            new RecordDecoder(true).decode(dataset.record(0, new RecordView()), out, 0);
        }
    }

    private void poke(Dataset dataset, int record, int field, byte[] bytes) throws IOException {
        int at = dataset.shard(0).structure().entryOffset(record) + field;
        try (FileChannel channel = FileChannel.open(shard, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(bytes), at);
        }
    }

    private static byte[] le(long value) {
        return ByteBuffer.allocate(8).order(LITTLE_ENDIAN).putLong(value).array();
    }

    private static byte[] leInt(int value) {
        return ByteBuffer.allocate(4).order(LITTLE_ENDIAN).putInt(value).array();
    }
}
