package io.pinshard.reader;

import static java.nio.ByteOrder.LITTLE_ENDIAN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.format.IndexEntryDescriptor;
import io.pinshard.format.Json;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import io.pinshard.format.Yuv420Descriptor;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * yuv420 records whose index entry no longer fits their planes (re-sealed, so every CRC matches) are refused before a
 * plane offset is computed from them, at first use and by verify, naming the file, the shard and the record; a changed
 * plane byte is a checksum mismatch for verify.
 */
class Yuv420HostileTest {
    private static final int[][] SHAPES = {{5, 7}, {6, 6}, {1, 1}};

    @TempDir
    Path dir;
    String shardName;

    @BeforeEach
    void write() throws IOException {
        try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults().withClasses(List.of("a")))) {
            for (int i = 0; i < SHAPES.length; i++) {
                byte[] pixels = TestImages.pixels(i, SHAPES[i][0], SHAPES[i][1], 3);
                writer.appendPixels(new UnsafeBuffer(pixels), 0, SHAPES[i][0], SHAPES[i][1], 3, 0, "k" + i,
                    Codec.YUV420);
            }
            writer.finish();
        }
        shardName = Json.readManifest(dir).shards().get(0).file();
    }

    @Test
    void writtenRecordsAreIntactAndHaveTheirPlanesLength() {
        assertTrue(new DatasetVerifier().verify(dir).isEmpty());
        try (Dataset dataset = Dataset.open(dir)) {
            RecordView view = new RecordView();
            for (int i = 0; i < SHAPES.length; i++) {
                dataset.record(i, view);
                assertEquals(Codec.YUV420, view.codec());
                assertEquals(Yuv420Descriptor.payloadLength(SHAPES[i][0], SHAPES[i][1]), view.payloadLength());
            }
        }
    }

    @Test
    void anEntryWhoseHeightNoLongerFitsItsPlanesIsRefused() throws IOException {
        editEntry(1, IndexEntryDescriptor.HEIGHT_OFFSET, 5); // 6x6 planes (48 bytes) claimed as 5x6 (30 + 18)
        assertRefused(1, "yuv420 payload holds 54 bytes but 5x6 needs 48");
    }

    @Test
    void truncatedPlanesAreRefused() throws IOException {
        editEntry(0, IndexEntryDescriptor.PAYLOAD_LENGTH_OFFSET, 58); // one Cr byte short of 35 + 12 + 12
        assertRefused(0, "yuv420 payload holds 58 bytes but 5x7 needs 59");
    }

    @Test
    void aYuv420EntryClaimingOneOrFourChannelsIsRefused() throws IOException {
        ShardSurgery surgery = new ShardSurgery(dir, shardName);
        surgery.bytes.putByte(surgery.entry(2) + IndexEntryDescriptor.CHANNELS_OFFSET, (byte) 4);
        surgery.seal();
        assertRefused(2, "yuv420 records decode to 3 channels, not 4");
    }

    @Test
    void aYuv420RecordRelabelledRawIsRefused() throws IOException {
        ShardSurgery surgery = new ShardSurgery(dir, shardName);
        surgery.bytes.putByte(surgery.entry(0) + IndexEntryDescriptor.CODEC_OFFSET, (byte) Codec.RAW.id());
        surgery.seal();
        assertRefused(0, "raw payload holds 59 bytes but 5x7x3 needs 105");
    }

    @Test
    void aChangedPlaneByteIsAChecksumMismatchForVerifyAndTheDecoder() throws IOException {
        ShardSurgery surgery = new ShardSurgery(dir, shardName);
        int payload = (int) surgery.bytes.getLong(surgery.entry(0) + IndexEntryDescriptor.PAYLOAD_OFFSET_OFFSET,
            LITTLE_ENDIAN);
        surgery.bytes.putByte(payload + 40, (byte) ~surgery.bytes.getByte(payload + 40)); // a Cb byte
        surgery.writeAndFixManifest(surgery.bytes.byteArray());
        List<Problem> problems = new DatasetVerifier().verify(dir);
        assertTrue(problems.stream().anyMatch(p -> p.record() == 0 && p.kind() == Kind.CHECKSUM_MISMATCH),
            problems.toString());
        try (Dataset dataset = Dataset.open(dir); RecordDecoder decoder = new RecordDecoder(CrcCheck.ALWAYS)) {
            RecordView view = dataset.record(0, new RecordView());
            ShardFormatException e = assertThrows(ShardFormatException.class,
                () -> decoder.decode(view, new UnsafeBuffer(TestImages.direct(5 * 7 * 3)), 0));
            assertEquals(Kind.CHECKSUM_MISMATCH, e.kind(), "the whole-image decoder checks it when asked (AUTO leaves yuv420, like raw, to verify)");
        }
    }

    private void editEntry(int record, int field, int value) throws IOException {
        ShardSurgery surgery = new ShardSurgery(dir, shardName);
        surgery.bytes.putInt(surgery.entry(record) + field, value, LITTLE_ENDIAN);
        surgery.seal();
    }

    private void assertRefused(int record, String detail) {
        ShardFormatException e = assertThrows(ShardFormatException.class, () -> TestImages.openAndTouchEveryShard(dir));
        assertEquals(Kind.BAD_INDEX_ENTRY, e.kind());
        assertEquals(record, e.record());
        assertTrue(e.getMessage().contains(shardName) && e.getMessage().contains(detail)
            && e.getMessage().contains(dir.toString()), e.getMessage());
        List<Problem> problems = new DatasetVerifier().verify(dir);
        assertTrue(problems.stream().anyMatch(p -> p.record() == record && p.kind() == Kind.BAD_INDEX_ENTRY
            && p.detail().contains(detail)), problems.toString());
    }
}
