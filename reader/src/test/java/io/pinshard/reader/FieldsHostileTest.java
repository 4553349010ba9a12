package io.pinshard.reader;

import static java.nio.ByteOrder.LITTLE_ENDIAN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.format.Crc32c;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldType;
import io.pinshard.format.FieldsSectionDescriptor;
import io.pinshard.format.Json;
import io.pinshard.format.ShardFooterDescriptor;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import io.pinshard.writer.FieldValues;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile fields sections, every checksum re-sealed as a careful attacker would (key table, metadata, the section's
 * own CRC, header, index, footer, manifest): each is refused at the first field read with an error naming dataset,
 * shard, record (where one is at fault) and field, while the image path keeps working, and {@code verify} reports it.
 */
class FieldsHostileTest {
    static final List<FieldSchema> SCHEMA = List.of(FieldSchema.variable("caption", FieldType.UTF8),
        FieldSchema.fixed("box", FieldType.FLOAT32, 4), FieldSchema.variable("meta", FieldType.JSON));

    @TempDir
    Path dir;

    @BeforeEach
    void write() throws IOException {
        try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults().withFields(SCHEMA))) {
            FieldValues values = writer.newFieldValues();
            for (int r = 0; r < 4; r++) {
                values.clear().utf8("caption", "a photo of thing " + r).float32("box", r, r + 1, r + 2, r + 3)
                    .json("meta", "{\"n\":" + r + "}");
                writer.appendPixels(new UnsafeBuffer(TestImages.pixels(r, 2, 2, 3)), 0, 2, 2, 3, -1, "k" + r,
                    Codec.RAW, values);
            }
            writer.finish();
        }
    }

    /** A shard's fields section, editable, with every checksum re-sealed by {@link #seal}. */
    final class Section {
        final ShardSurgery surgery = new ShardSurgery(dir, "shard-00000.pinshard");
        final UnsafeBuffer bytes = surgery.bytes;
        final int metadataAt;
        final int metadataLength;
        final int keyTableAt;
        final int keyTableLength;
        final int base;
        final int length;

        Section() throws IOException {
            int footer = surgery.footer();
            long count = bytes.getLong(footer + ShardFooterDescriptor.RECORD_COUNT_OFFSET, LITTLE_ENDIAN);
            keyTableAt = (int) (surgery.indexOffset() + 40 * count);
            keyTableLength = bytes.getInt(footer + ShardFooterDescriptor.KEY_TABLE_LENGTH_OFFSET, LITTLE_ENDIAN);
            metadataAt = keyTableAt + keyTableLength;
            metadataLength = bytes.getInt(footer + ShardFooterDescriptor.METADATA_LENGTH_OFFSET, LITTLE_ENDIAN);
            Map<?, ?> section = (Map<?, ?>) metadata().get("fieldsSection");
            base = keyTableAt + ((Number) section.get("offset")).intValue();
            length = ((Number) section.get("length")).intValue();
        }

        Map<String, Object> metadata() throws IOException {
            byte[] json = new byte[metadataLength];
            bytes.getBytes(metadataAt, json);
            return Json.parseObject(json);
        }

        int column(int field) {
            return base + (int) bytes.getLong(base + FieldsSectionDescriptor.columnEntryOffset(field)
                + FieldsSectionDescriptor.COLUMN_OFFSET_OFFSET, LITTLE_ENDIAN);
        }

        /** Replaces metadata text of the same length (so nothing moves). */
        void replaceMetadata(String from, String to) {
            assertEquals(from.length(), to.length());
            byte[] json = new byte[metadataLength];
            bytes.getBytes(metadataAt, json);
            String text = new String(json, StandardCharsets.UTF_8);
            assertTrue(text.contains(from), text);
            bytes.putBytes(metadataAt, text.replace(from, to).getBytes(StandardCharsets.UTF_8));
        }

        void seal() throws IOException {
            Crc32c crc = new Crc32c();
            String sectionCrc = Crc32c.hex(crc.compute(bytes, base, length));
            byte[] json = new byte[metadataLength];
            bytes.getBytes(metadataAt, json);
            String text = new String(json, StandardCharsets.UTF_8)
                .replaceAll("\"crc32c\":\"[0-9a-f]{8}\"", "\"crc32c\":\"" + sectionCrc + "\"");
            bytes.putBytes(metadataAt, text.getBytes(StandardCharsets.UTF_8));
            int footer = surgery.footer();
            bytes.putInt(footer + ShardFooterDescriptor.KEY_TABLE_CRC_OFFSET,
                crc.compute(bytes, keyTableAt, keyTableLength), LITTLE_ENDIAN);
            bytes.putInt(footer + ShardFooterDescriptor.METADATA_CRC_OFFSET,
                crc.compute(bytes, metadataAt, metadataLength), LITTLE_ENDIAN);
            surgery.seal();
        }
    }

    /** The first field read of record {@code record} fails naming shard, field and what; images still read. */
    private ShardFormatException refusedAt(int record, String field) {
        return refusedAt(record, field, field);
    }

    /** As {@link #refusedAt(int, String)}, reading {@code field} and expecting {@code text} in the message. */
    private ShardFormatException refusedAt(int record, String field, String text) {
        try (Dataset dataset = Dataset.open(dir)) {
            RecordView view = dataset.record(record, new RecordView());
            assertEquals("k" + record, view.key(), "the image path does not depend on the fields section");
            ShardFormatException e = assertThrows(ShardFormatException.class,
                () -> view.fieldLength(dataset.fieldIndex(field)));
            assertEquals("shard-00000.pinshard", e.shard());
            assertEquals(dir.toString(), e.dataset());
            assertTrue(e.getMessage().contains(text), e.getMessage());
            return e;
        }
    }

    private void verifyReports(Kind kind, String text) {
        List<Problem> problems = DatasetVerifier.checksumsOnly().verify(dir);
        assertTrue(problems.stream().anyMatch(p -> p.kind() == kind && p.detail().contains(text)),
            "verify reports " + kind + " " + text + ": " + problems);
    }

    @Test
    void intactFieldsVerifyClean() {
        assertEquals(List.of(), new DatasetVerifier().verify(dir));
    }

    @Test
    void variableOffsetPastTheColumnIsRefusedNamingTheRecord() throws IOException {
        Section section = new Section();
        int offsets = section.column(0);
        section.bytes.putLong(offsets + 3 * 8, 0x7fff_ffff_0000L, LITTLE_ENDIAN); // offsets[3]: record 2's end
        section.seal();
        ShardFormatException e = refusedAt(2, "caption");
        assertEquals(Kind.OFFSET_OUT_OF_BOUNDS, e.kind());
        assertEquals(2, e.record());
        verifyReports(Kind.OFFSET_OUT_OF_BOUNDS, "caption");
    }

    @Test
    void decreasingOffsetsAreRefused() throws IOException {
        Section section = new Section();
        int offsets = section.column(2);
        long third = section.bytes.getLong(offsets + 8, LITTLE_ENDIAN);
        section.bytes.putLong(offsets + 16, third - 1, LITTLE_ENDIAN); // offsets[2] < offsets[1]
        section.seal();
        ShardFormatException e = refusedAt(0, "meta");
        assertEquals(1, e.record());
    }

    @Test
    void hugeColumnLengthIsRefused() throws IOException {
        Section section = new Section();
        section.bytes.putLong(section.base + FieldsSectionDescriptor.columnEntryOffset(1)
            + FieldsSectionDescriptor.COLUMN_LENGTH_OFFSET, Long.MAX_VALUE - 7, LITTLE_ENDIAN);
        section.seal();
        assertEquals(Kind.OFFSET_OUT_OF_BOUNDS, refusedAt(0, "box").kind());
        verifyReports(Kind.OFFSET_OUT_OF_BOUNDS, "box");
    }

    @Test
    void fixedColumnOfTheWrongLengthIsRefused() throws IOException {
        Section section = new Section();
        section.bytes.putInt(section.base + FieldsSectionDescriptor.columnEntryOffset(1)
            + FieldsSectionDescriptor.COLUMN_ELEMENTS_OFFSET, 5, LITTLE_ENDIAN); // schema says 4
        section.seal();
        assertEquals(Kind.BAD_FIELDS, refusedAt(3, "box").kind());
    }

    @Test
    void sectionPlacedOutsideTheKeyTableIsRefused() throws IOException {
        Section section = new Section();
        String offset = "\"offset\":" + (section.base - section.keyTableAt);
        String moved = "\"offset\":" + "9".repeat(offset.length() - "\"offset\":".length());
        section.replaceMetadata(offset, moved);
        section.seal();
        assertEquals(Kind.OFFSET_OUT_OF_BOUNDS, refusedAt(1, "box", "fields section").kind());
    }

    @Test
    void changedValueWithoutItsSectionCrcIsAChecksumMismatch() throws IOException {
        Section section = new Section();
        Crc32c crc = new Crc32c();
        String stored = Crc32c.hex(crc.compute(section.bytes, section.base, section.length));
        section.bytes.putByte(section.column(1), (byte) 0x7f); // a box float, section CRC left stale
        section.seal();
        // seal() re-sealed the section CRC too: put the stale one back, then the metadata CRC again.
        String text = new String(readMetadata(section), StandardCharsets.UTF_8)
            .replaceAll("\"crc32c\":\"[0-9a-f]{8}\"", "\"crc32c\":\"" + stored + "\"");
        section.bytes.putBytes(section.metadataAt, text.getBytes(StandardCharsets.UTF_8));
        section.bytes.putInt(section.surgery.footer() + ShardFooterDescriptor.METADATA_CRC_OFFSET,
            crc.compute(section.bytes, section.metadataAt, section.metadataLength), LITTLE_ENDIAN);
        section.surgery.seal();
        assertEquals(Kind.CHECKSUM_MISMATCH, refusedAt(0, "caption", "fields section").kind());
        verifyReports(Kind.CHECKSUM_MISMATCH, "fields section");
    }

    @Test
    void malformedJsonAndUtf8AreReportedByVerify() throws IOException {
        Section section = new Section();
        int caption = section.column(0) + 5 * 8; // values after the 5 offsets
        section.bytes.putByte(caption, (byte) 0xff);
        int meta = section.column(2) + 5 * 8;
        section.bytes.putByte(meta, (byte) '[');
        section.seal();
        List<Problem> problems = DatasetVerifier.checksumsOnly().verify(dir);
        assertTrue(problems.stream().anyMatch(p -> p.record() == 0 && p.detail().contains("caption: value is not UTF-8")),
            problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.record() == 0 && p.detail().contains("meta: value is not one JSON")),
            problems.toString());
    }

    @Test
    void schemaThatDiffersFromTheManifestIsRefused() throws IOException {
        Section section = new Section();
        section.replaceMetadata("\"name\":\"caption\"", "\"name\":\"captiom\"");
        section.seal();
        ShardFormatException e = refusedAt(0, "caption");
        assertEquals(Kind.MANIFEST_MISMATCH, e.kind());
    }

    private static byte[] readMetadata(Section section) {
        byte[] json = new byte[section.metadataLength];
        section.bytes.getBytes(section.metadataAt, json);
        return json;
    }
}
