package io.pinshard.reader;

import static io.pinshard.format.IndexEntryDescriptor.CODEC_OFFSET;
import static io.pinshard.format.IndexEntryDescriptor.KEY_OFFSET_OFFSET;
import static io.pinshard.format.IndexEntryDescriptor.PAYLOAD_LENGTH_OFFSET;
import static io.pinshard.format.IndexEntryDescriptor.PAYLOAD_OFFSET_OFFSET;
import static io.pinshard.format.IndexEntryDescriptor.WIDTH_OFFSET;
import static java.nio.ByteOrder.LITTLE_ENDIAN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import io.pinshard.format.ShardHeaderDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each way a dataset can be wrong gives its own error kind and a message naming dataset, shard and
 * (where there is one) record. Checksums are re-sealed after each edit so the structural check itself is hit.
 */
class DistinctErrorsTest {
    private static final String SHARD = "shard-00000.pinshard";

    @TempDir
    Path dir;

    @BeforeEach
    void write() throws IOException {
        TestImages.writeDataset(dir, 4, 1 << 20);
    }

    private ShardFormatException openAfter(Consumer<ShardSurgery> edit) throws IOException {
        ShardSurgery surgery = new ShardSurgery(dir, SHARD);
        edit.accept(surgery);
        surgery.seal();
        return assertThrows(ShardFormatException.class, () -> TestImages.openAndTouchEveryShard(dir));
    }

    private static void assertNames(ShardFormatException e, Kind kind, long record) {
        assertEquals(kind, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains(SHARD), "names the shard: " + e.getMessage());
        assertTrue(e.getMessage().startsWith("dataset "), "names the dataset: " + e.getMessage());
        assertEquals(record, e.record(), e.getMessage());
        if (record >= 0) {
            assertTrue(e.getMessage().contains("record " + record), e.getMessage());
        }
    }

    @Test
    void wrongMagic() throws IOException {
        assertNames(openAfter(s -> s.bytes.putByte(0, (byte) 'X')), Kind.BAD_MAGIC, -1);
    }

    @Test
    void unknownMajorVersion() throws IOException {
        ShardFormatException e = openAfter(s ->
            s.bytes.putShort(ShardHeaderDescriptor.MAJOR_VERSION_OFFSET, (short) 2, LITTLE_ENDIAN));
        assertNames(e, Kind.UNSUPPORTED_VERSION, -1);
        assertTrue(e.getMessage().contains("2.0"), e.getMessage());
    }

    @Test
    void newerMinorVersionIsAccepted() throws IOException {
        ShardSurgery surgery = new ShardSurgery(dir, SHARD);
        surgery.bytes.putShort(ShardHeaderDescriptor.MINOR_VERSION_OFFSET, (short) 7, LITTLE_ENDIAN);
        surgery.seal();
        try (Dataset dataset = Dataset.open(dir)) {
            assertEquals(7, dataset.shard(0).structure().minorVersion());
        }
    }

    @Test
    void payloadOffsetPastTheEnd() throws IOException {
        assertNames(openAfter(s -> s.bytes.putLong(s.entry(2) + PAYLOAD_OFFSET_OFFSET, 1L << 40, LITTLE_ENDIAN)),
            Kind.OFFSET_OUT_OF_BOUNDS, 2);
    }

    @Test
    void payloadLengthPastTheIndex() throws IOException {
        assertNames(openAfter(s -> s.bytes.putInt(s.entry(3) + PAYLOAD_LENGTH_OFFSET, 1 << 30, LITTLE_ENDIAN)),
            Kind.OFFSET_OUT_OF_BOUNDS, 3);
    }

    @Test
    void overlappingRecords() throws IOException {
        assertNames(openAfter(s -> s.bytes.putLong(s.entry(1) + PAYLOAD_OFFSET_OFFSET,
            s.bytes.getLong(s.entry(0) + PAYLOAD_OFFSET_OFFSET, LITTLE_ENDIAN), LITTLE_ENDIAN)),
            Kind.OVERLAPPING_RECORDS, 1);
    }

    @Test
    void misalignedPayload() throws IOException {
        assertNames(openAfter(s -> s.bytes.putLong(s.entry(1) + PAYLOAD_OFFSET_OFFSET,
            s.bytes.getLong(s.entry(1) + PAYLOAD_OFFSET_OFFSET, LITTLE_ENDIAN) + 8, LITTLE_ENDIAN)),
            Kind.MISALIGNED, 1);
    }

    @Test
    void unknownCodec() throws IOException {
        assertNames(openAfter(s -> s.bytes.putByte(s.entry(0) + CODEC_OFFSET, (byte) 9)), Kind.BAD_INDEX_ENTRY, 0);
    }

    @Test
    void shapeThatDoesNotMatchARawPayload() throws IOException {
        // Record 0 is raw: a wider image would read past its payload and show garbage pixels.
        assertNames(openAfter(s -> s.bytes.putInt(s.entry(0) + WIDTH_OFFSET, 5000, LITTLE_ENDIAN)),
            Kind.BAD_INDEX_ENTRY, 0);
    }

    @Test
    void keyOutsideTheKeyTable() throws IOException {
        assertNames(openAfter(s -> s.bytes.putInt(s.entry(2) + KEY_OFFSET_OFFSET, 1 << 20, LITTLE_ENDIAN)),
            Kind.OFFSET_OUT_OF_BOUNDS, 2);
    }

    @Test
    void truncatedShard() throws IOException {
        ShardSurgery surgery = new ShardSurgery(dir, SHARD);
        surgery.writeAndFixManifest(java.util.Arrays.copyOf(surgery.bytes.byteArray(), surgery.bytes.capacity() - 10));
        assertNames(assertThrows(ShardFormatException.class, () -> Dataset.open(dir)), Kind.TRUNCATED, -1);
    }

    @Test
    void manifestRecordCountMismatch() throws IOException {
        Path manifest = dir.resolve(DatasetManifest.FILE_NAME);
        Files.writeString(manifest, Files.readString(manifest).replace("\"records\" : 4", "\"records\" : 5"));
        ShardFormatException e = assertThrows(ShardFormatException.class, () -> Dataset.open(dir));
        assertEquals(Kind.MANIFEST_MISMATCH, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains(SHARD), e.getMessage());
    }

    @Test
    void manifestSizeMismatch() throws IOException {
        Files.write(dir.resolve(SHARD), new byte[] {1, 2, 3}, java.nio.file.StandardOpenOption.APPEND);
        ShardFormatException e = assertThrows(ShardFormatException.class, () -> Dataset.open(dir));
        assertEquals(Kind.MANIFEST_MISMATCH, e.kind(), e.getMessage());
    }

    @Test
    void manifestPathTraversalIsRefused() throws IOException {
        Path manifest = dir.resolve(DatasetManifest.FILE_NAME);
        Files.writeString(manifest, Files.readString(manifest).replace(SHARD, "../" + SHARD));
        assertEquals(Kind.BAD_MANIFEST, assertThrows(ShardFormatException.class, () -> Dataset.open(dir)).kind());
    }

    @Test
    void notADataset(@TempDir Path empty) {
        assertEquals(Kind.NOT_A_DATASET, assertThrows(ShardFormatException.class, () -> Dataset.open(empty)).kind());
    }

    @Test
    void corruptLz4PayloadFailsDecodeNamingTheRecord() throws IOException {
        // Record 1 is lz4; sealed index CRC stays valid because only payload bytes change, so open succeeds
        // and the decoder (CRC checking off) must catch the malformed block itself.
        ShardSurgery surgery = new ShardSurgery(dir, SHARD);
        int payload = (int) surgery.bytes.getLong(surgery.entry(1) + PAYLOAD_OFFSET_OFFSET, LITTLE_ENDIAN);
        int length = surgery.bytes.getInt(surgery.entry(1) + PAYLOAD_LENGTH_OFFSET, LITTLE_ENDIAN);
        for (int i = 0; i < length; i++) {
            surgery.bytes.putByte(payload + i, (byte) 0xF0);
        }
        surgery.seal();
        try (Dataset dataset = Dataset.open(dir)) {
            RecordView view = dataset.record(1, new RecordView());
            org.agrona.concurrent.UnsafeBuffer out =
                new org.agrona.concurrent.UnsafeBuffer(java.nio.ByteBuffer.allocateDirect(view.decodedBytes()));
            ShardFormatException e = assertThrows(ShardFormatException.class,
                () -> new RecordDecoder(false).decode(view, out, 0));
            assertNames(e, Kind.UNDECODABLE_PAYLOAD, 1);
            e = assertThrows(ShardFormatException.class, () -> new RecordDecoder(true).decode(view, out, 0));
            assertNames(e, Kind.CHECKSUM_MISMATCH, 1);
        }
    }
}
