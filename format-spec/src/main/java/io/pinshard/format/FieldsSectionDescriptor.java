package io.pinshard.format;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

import io.pinshard.format.ShardFormatException.Kind;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Layout of a shard's fields section (format 1.1, SPEC.md section 17): the per-record field values, stored in
 * the key table after the last key, at an 8-aligned offset within it (the table itself starts 8-aligned), and
 * located by the shard metadata's {@code fieldsSection} ({@link FieldsSectionPlacement}). Offsets below are
 * relative to the section's start; all integers little-endian.
 *
 * <pre>
 *  section header (24 bytes)
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+ 0
 *  |                    Magic "PSFIELDS" (8 bytes)                 |
 *  |                                                               |
 *  +---------------------------------------------------------------+ 8
 *  |                      Field count F (u32)                      |
 *  +---------------------------------------------------------------+ 12
 *  |                    Reserved (u32, must be 0)                  |
 *  +---------------------------------------------------------------+ 16
 *  |                  Record count N (u64, = footer's)             |
 *  |                                                               |
 *  +---------------------------------------------------------------+ 24
 *  column directory: F entries of 24 bytes, entry f at 24 + 24 f
 *  +---------------+-----------------------------------------------+ 0
 *  |  Type (u8)    |          Reserved (3 bytes, must be 0)        |
 *  +---------------+-----------------------------------------------+ 4
 *  |      Elements per record (u32; 0 = variable length)           |
 *  +---------------------------------------------------------------+ 8
 *  |          Column offset (u64, from section start, 8-aligned)   |
 *  |                                                               |
 *  +---------------------------------------------------------------+ 16
 *  |                    Column length in bytes (u64)               |
 *  |                                                               |
 *  +---------------------------------------------------------------+ 24
 *  columns, in field order, each at align(end of the previous, 8), gaps zero:
 *   fixed:    N x (elements x elementBytes) values; record n's at n x width
 *   variable: N + 1 u64 offsets (relative to the values, offsets[0] = 0, non-decreasing,
 *             multiples of elementBytes), then the values; record n's are [offsets[n], offsets[n+1])
 * </pre>
 *
 * <p>The section ends at its last column's end. Every check here is what a reader runs before it uses a number
 * from the section; failures name the field (callers add dataset, shard and record).
 */
public final class FieldsSectionDescriptor {
    public static final byte[] MAGIC = "PSFIELDS".getBytes(StandardCharsets.US_ASCII);
    public static final long MAGIC_LONG = ShardHeaderDescriptor.littleEndianLong(MAGIC);

    public static final int MAGIC_OFFSET = 0;
    public static final int FIELD_COUNT_OFFSET = MAGIC_OFFSET + 8;
    public static final int RESERVED_OFFSET = FIELD_COUNT_OFFSET + 4;
    public static final int RECORD_COUNT_OFFSET = RESERVED_OFFSET + 4;
    /** Size of the section header; the column directory follows it. */
    public static final int HEADER_LENGTH = RECORD_COUNT_OFFSET + 8;

    public static final int COLUMN_TYPE_OFFSET = 0;
    public static final int COLUMN_RESERVED_OFFSET = COLUMN_TYPE_OFFSET + 1;
    public static final int COLUMN_RESERVED_LENGTH = 3;
    public static final int COLUMN_ELEMENTS_OFFSET = COLUMN_RESERVED_OFFSET + COLUMN_RESERVED_LENGTH;
    public static final int COLUMN_OFFSET_OFFSET = COLUMN_ELEMENTS_OFFSET + 4;
    public static final int COLUMN_LENGTH_OFFSET = COLUMN_OFFSET_OFFSET + 8;
    /** Size of one column directory entry. */
    public static final int COLUMN_ENTRY_LENGTH = COLUMN_LENGTH_OFFSET + 8;

    /** Bytes per entry of a variable column's offsets array. */
    public static final int OFFSET_BYTES = 8;
    /** Alignment of the section (within the key table) and of every column (within the section). */
    public static final int ALIGNMENT = 8;

    private FieldsSectionDescriptor() {
    }

    /** Offset (from section start) of column directory entry {@code field}. */
    public static int columnEntryOffset(int field) {
        return HEADER_LENGTH + field * COLUMN_ENTRY_LENGTH;
    }

    /** Where the first column starts: after the header and the directory of {@code fieldCount} entries. */
    public static long columnsStart(int fieldCount) {
        return BitUtil.align((long) columnEntryOffset(fieldCount), ALIGNMENT);
    }

    /** Where a writer puts the section within a key table whose keys end at {@code keysEnd}. */
    public static long sectionOffset(long keysEnd) {
        return BitUtil.align(keysEnd, ALIGNMENT);
    }

    /** Length of a variable column of {@code records} records whose values take {@code valueBytes}. */
    public static long variableColumnLength(long records, long valueBytes) {
        return (records + 1) * OFFSET_BYTES + valueBytes;
    }

    /**
     * Checks the section header and column directory against the schema and the shard's record count, and every
     * column's place (SPEC.md section 17.4, steps a-h): O(fields). {@code base} is the section's offset in
     * {@code buffer}, which holds at least {@code length} bytes from there (the caller checked the placement).
     */
    public static void checkSection(DirectBuffer buffer, int base, long length, long recordCount,
                                    List<FieldSchema> schema) {
        int fields = schema.size();
        if (length < columnEntryOffset(fields)) {
            throw new ShardFormatException(Kind.BAD_FIELDS, "fields section of " + length + " bytes is too short for"
                + " its header and a directory of " + fields + " columns");
        }
        if (buffer.getLong(base + MAGIC_OFFSET, LITTLE_ENDIAN) != MAGIC_LONG) {
            throw new ShardFormatException(Kind.BAD_FIELDS, "fields section does not start with \"PSFIELDS\"");
        }
        long count = buffer.getInt(base + FIELD_COUNT_OFFSET, LITTLE_ENDIAN) & 0xFFFFFFFFL;
        if (count != fields) {
            throw new ShardFormatException(Kind.BAD_FIELDS, "fields section holds " + count
                + " columns, the schema lists " + fields + " fields");
        }
        if (buffer.getInt(base + RESERVED_OFFSET, LITTLE_ENDIAN) != 0) {
            throw new ShardFormatException(Kind.NONZERO_PADDING, "reserved fields section header bytes are not zero");
        }
        long records = buffer.getLong(base + RECORD_COUNT_OFFSET, LITTLE_ENDIAN);
        if (records != recordCount) {
            throw new ShardFormatException(Kind.BAD_FIELDS, "fields section is for " + Long.toUnsignedString(records)
                + " records, the shard holds " + recordCount);
        }
        long previousEnd = columnsStart(fields);
        for (int f = 0; f < fields; f++) {
            previousEnd = checkColumn(buffer, base, length, recordCount, schema.get(f), f, previousEnd);
        }
    }

    private static long checkColumn(DirectBuffer buffer, int base, long length, long records, FieldSchema field,
                                    int f, long previousEnd) {
        int entry = base + columnEntryOffset(f);
        String what = "field " + field.name() + ": ";
        int typeId = buffer.getByte(entry + COLUMN_TYPE_OFFSET) & 0xFF;
        if (typeId != field.type().id()) {
            FieldType stored = FieldType.fromId(typeId);
            throw new ShardFormatException(Kind.BAD_FIELDS, what + "column type is "
                + (stored == null ? "unknown id " + typeId : stored.label()) + ", the schema says " + field.type().label());
        }
        if ((buffer.getInt(entry + COLUMN_TYPE_OFFSET, LITTLE_ENDIAN) >>> 8) != 0) {
            throw new ShardFormatException(Kind.NONZERO_PADDING, what + "reserved column directory bytes are not zero");
        }
        long elements = buffer.getInt(entry + COLUMN_ELEMENTS_OFFSET, LITTLE_ENDIAN) & 0xFFFFFFFFL;
        if (elements != field.length()) {
            throw new ShardFormatException(Kind.BAD_FIELDS, what + "column holds " + elements
                + " elements per record, the schema says " + field.length());
        }
        long offset = buffer.getLong(entry + COLUMN_OFFSET_OFFSET, LITTLE_ENDIAN);
        long columnLength = buffer.getLong(entry + COLUMN_LENGTH_OFFSET, LITTLE_ENDIAN);
        if (offset < previousEnd || offset > length || (offset & (ALIGNMENT - 1)) != 0 || columnLength < 0
            || columnLength > length - offset) {
            throw new ShardFormatException(Kind.OFFSET_OUT_OF_BOUNDS, what + "column [" + Long.toUnsignedString(offset)
                + ", +" + Long.toUnsignedString(columnLength) + ") is not an 8-aligned span of the " + length
                + "-byte section after the previous column (which ends at " + previousEnd + ")");
        }
        // records <= K / 40 (step 6 of the frame checks), so these products cannot overflow.
        long expected = field.isFixed() ? records * field.fixedBytes() : (records + 1) * OFFSET_BYTES;
        if (field.isFixed() ? columnLength != expected : columnLength < expected) {
            throw new ShardFormatException(Kind.BAD_FIELDS, what + "column of " + columnLength + " bytes cannot hold "
                + records + " records (" + (field.isFixed() ? "needs exactly " : "offsets alone need ") + expected + ")");
        }
        return BitUtil.align(offset + columnLength, ALIGNMENT);
    }

    /**
     * Checks a variable column's offsets array (SPEC.md section 17.4, step i): O(records). {@code column} is the
     * column's offset in {@code buffer}, whose directory entry passed {@link #checkSection}.
     */
    public static void checkOffsets(DirectBuffer buffer, int column, long columnLength, long records,
                                    FieldSchema field) {
        long valuesLength = columnLength - (records + 1) * OFFSET_BYTES;
        int width = field.type().elementBytes();
        long previous = buffer.getLong(column, LITTLE_ENDIAN);
        if (previous != 0) {
            throw new ShardFormatException(Kind.BAD_FIELDS, 0, "field " + field.name() + ": offsets[0] is "
                + Long.toUnsignedString(previous) + ", not 0");
        }
        for (long n = 0; n < records; n++) {
            long next = buffer.getLong(column + (int) ((n + 1) * OFFSET_BYTES), LITTLE_ENDIAN);
            if (next < previous || next > valuesLength || next % width != 0) {
                throw new ShardFormatException(Kind.OFFSET_OUT_OF_BOUNDS, n, "field " + field.name() + ": value ["
                    + previous + ", " + Long.toUnsignedString(next) + ") is not a span of whole " + width
                    + "-byte elements inside the column's " + valuesLength + " value bytes");
            }
            previous = next;
        }
        if (previous != valuesLength) {
            throw new ShardFormatException(Kind.BAD_FIELDS, "field " + field.name() + ": offsets end at " + previous
                + ", the column holds " + valuesLength + " value bytes");
        }
    }

    /** Writes the section header at {@code base}. */
    public static void writeHeader(MutableDirectBuffer buffer, int base, int fieldCount, long recordCount) {
        buffer.putLong(base + MAGIC_OFFSET, MAGIC_LONG, LITTLE_ENDIAN);
        buffer.putInt(base + FIELD_COUNT_OFFSET, fieldCount, LITTLE_ENDIAN);
        buffer.putInt(base + RESERVED_OFFSET, 0, LITTLE_ENDIAN);
        buffer.putLong(base + RECORD_COUNT_OFFSET, recordCount, LITTLE_ENDIAN);
    }

    /** Writes column directory entry {@code field} of the section at {@code base}. */
    public static void writeColumn(MutableDirectBuffer buffer, int base, int field, FieldSchema schema,
                                   long columnOffset, long columnLength) {
        int entry = base + columnEntryOffset(field);
        buffer.putInt(entry + COLUMN_TYPE_OFFSET, schema.type().id(), LITTLE_ENDIAN); // the 3 reserved bytes: 0
        buffer.putInt(entry + COLUMN_ELEMENTS_OFFSET, schema.length(), LITTLE_ENDIAN);
        buffer.putLong(entry + COLUMN_OFFSET_OFFSET, columnOffset, LITTLE_ENDIAN);
        buffer.putLong(entry + COLUMN_LENGTH_OFFSET, columnLength, LITTLE_ENDIAN);
    }
}
