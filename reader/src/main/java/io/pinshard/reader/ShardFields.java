package io.pinshard.reader;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

import io.pinshard.format.Crc32c;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldsSectionDescriptor;
import io.pinshard.format.FieldsSectionFlyweight;
import io.pinshard.format.FieldsSectionPlacement;
import io.pinshard.format.Json;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import io.pinshard.format.ShardStructure;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The validated fields section of one mapped shard (format 1.1, SPEC.md section 17): where each field's column
 * lies, copied out of the mapping when the section was checked ({@link #check}: the metadata's CRC32C, schema and
 * placement, the section's CRC32C when asked, header and directory, every variable column's offsets). Record
 * {@code n}'s value of field {@code f} is then found by arithmetic ({@link #span}); a variable column's two offsets
 * are read from the mapping and checked again on each read, since the file may change under it. No per-record
 * objects. Callers hold the shard's read guard around every read.
 */
public final class ShardFields {
    private final List<FieldSchema> schema;
    private final long recordCount;
    /** Per field: file offset of the fixed values or of the variable column's offsets array. */
    private final long[] columnStart;
    /** Per field: file offset of a variable column's values (= columnStart for a fixed one). */
    private final long[] valuesStart;
    /** Per field: bytes of values. */
    private final long[] valuesLength;
    private final long sectionOffset;
    private final long sectionLength;

    private ShardFields(List<FieldSchema> schema, long recordCount, long[] columnStart, long[] valuesStart,
                        long[] valuesLength, long sectionOffset, long sectionLength) {
        this.schema = schema;
        this.sectionOffset = sectionOffset;
        this.sectionLength = sectionLength;
        this.recordCount = recordCount;
        this.columnStart = columnStart;
        this.valuesStart = valuesStart;
        this.valuesLength = valuesLength;
    }

    /**
     * Checks the fields of the shard in {@code file} (its structure's frame already checked) and returns where
     * they lie; {@code null} when the shard has no fields and {@code expected} lists none.
     *
     * @param expected the dataset's schema (the manifest's), or null to take the shard metadata's own
     * @param checkCrc whether to checksum the section (a pass over its bytes, as the index CRC at first use)
     * @throws ShardFormatException naming what is wrong (callers add dataset and shard)
     */
    public static ShardFields check(DirectBuffer file, ShardStructure structure, List<FieldSchema> expected,
                                    boolean checkCrc, Crc32c crc) {
        Map<String, Object> metadata = metadata(file, structure, crc);
        List<FieldSchema> schema = FieldsSectionPlacement.schemaOf(metadata.get(FieldsSectionPlacement.FIELDS_KEY));
        if (expected != null && !schema.equals(expected)) {
            throw new ShardFormatException(Kind.MANIFEST_MISMATCH, "shard metadata lists fields " + describe(schema)
                + ", the manifest " + describe(expected));
        }
        if (schema.isEmpty()) {
            return null;
        }
        FieldsSectionPlacement placement = FieldsSectionPlacement.of(metadata, structure.keyTableLength());
        int base = (int) (structure.keyTableOffset() + placement.offset());
        if (checkCrc) {
            int actual = crc.compute(file, base, (int) placement.length());
            if (actual != placement.crc32c()) {
                throw new ShardFormatException(Kind.CHECKSUM_MISMATCH, "fields section CRC32C is " + Crc32c.hex(actual)
                    + ", the metadata says " + Crc32c.hex(placement.crc32c()));
            }
        }
        long records = structure.recordCount();
        FieldsSectionDescriptor.checkSection(file, base, placement.length(), records, schema);
        FieldsSectionFlyweight section = new FieldsSectionFlyweight().wrap(file, base);
        long[] columnStart = new long[schema.size()];
        long[] valuesStart = new long[schema.size()];
        long[] valuesLength = new long[schema.size()];
        for (int f = 0; f < schema.size(); f++) {
            FieldSchema field = schema.get(f);
            // Read once: the section is checked against these copies, and reads use only them.
            long offset = section.columnOffset(f);
            long length = section.columnLength(f);
            columnStart[f] = base + offset;
            if (field.isFixed()) {
                valuesStart[f] = columnStart[f];
                valuesLength[f] = length;
            } else {
                long offsets = (records + 1) * FieldsSectionDescriptor.OFFSET_BYTES;
                valuesStart[f] = columnStart[f] + offsets;
                valuesLength[f] = length - offsets;
                FieldsSectionDescriptor.checkOffsets(file, (int) columnStart[f], length, records, field);
            }
        }
        return new ShardFields(schema, records, columnStart, valuesStart, valuesLength, base, placement.length());
    }

    /** The shard's metadata object, its CRC32C checked first (it says where the section is). */
    private static Map<String, Object> metadata(DirectBuffer file, ShardStructure structure, Crc32c crc) {
        int at = (int) structure.metadataOffset();
        int length = (int) structure.metadataLength();
        byte[] bytes = new byte[length];
        file.getBytes(at, bytes);
        if (crc.compute(new UnsafeBuffer(bytes), 0, length) != structure.metadataCrc()) {
            throw new ShardFormatException(Kind.CHECKSUM_MISMATCH, "metadata CRC32C does not match the footer");
        }
        try {
            Map<String, Object> parsed = Json.parseObject(bytes);
            if (parsed == null) {
                throw new IOException("null");
            }
            return parsed;
        } catch (IOException | RuntimeException e) {
            throw new ShardFormatException(Kind.BAD_FIELDS, "metadata is not a JSON object: " + e.getMessage());
        }
    }

    private static String describe(List<FieldSchema> schema) {
        StringBuilder text = new StringBuilder("[");
        for (FieldSchema field : schema) {
            text.append(text.length() > 1 ? ", " : "").append(field.describe());
        }
        return text.append(']').toString();
    }

    public List<FieldSchema> schema() {
        return schema;
    }

    /** File offset of the section. */
    public long sectionOffset() {
        return sectionOffset;
    }

    public long sectionLength() {
        return sectionLength;
    }

    /** File offset where field {@code field}'s column starts (its offsets array, for a variable field). */
    public long columnStart(int field) {
        return columnStart[field];
    }

    /** File offset where field {@code field}'s column ends. */
    public long columnEnd(int field) {
        return valuesStart[field] + valuesLength[field];
    }

    /**
     * Where record {@code record}'s value of field {@code field} lies: {@code (fileOffset << 32) | byteLength}, both
     * below 2^31 (use {@link #offsetOf} and {@link #lengthOf}). A variable column's offsets are read from
     * {@code file} and checked against the column again. Allocation-free.
     *
     * @throws ShardFormatException (no file context: callers add it) when the offsets changed into nonsense
     */
    public long span(DirectBuffer file, int field, long record) {
        FieldSchema schema = this.schema.get(field);
        if (record < 0 || record >= recordCount) {
            throw new IndexOutOfBoundsException("record " + record + " of a shard holding " + recordCount);
        }
        if (schema.isFixed()) {
            long width = schema.fixedBytes();
            return (valuesStart[field] + record * width) << 32 | width;
        }
        int at = (int) (columnStart[field] + record * FieldsSectionDescriptor.OFFSET_BYTES);
        long start = file.getLong(at, LITTLE_ENDIAN);
        long end = file.getLong(at + FieldsSectionDescriptor.OFFSET_BYTES, LITTLE_ENDIAN);
        if (start < 0 || start > end || end > valuesLength[field]) {
            throw new ShardFormatException(Kind.OFFSET_OUT_OF_BOUNDS, record, "field " + schema.name() + ": value ["
                + start + ", " + end + ") lies outside the column's " + valuesLength[field]
                + " value bytes (the fields section changed after it was checked)");
        }
        return (valuesStart[field] + start) << 32 | (end - start);
    }

    public static int offsetOf(long span) {
        return (int) (span >>> 32);
    }

    public static int lengthOf(long span) {
        return (int) span;
    }
}
