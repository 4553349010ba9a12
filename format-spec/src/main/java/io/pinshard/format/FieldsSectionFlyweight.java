package io.pinshard.format;

import static io.pinshard.format.FieldsSectionDescriptor.*;
import static java.nio.ByteOrder.LITTLE_ENDIAN;

import org.agrona.DirectBuffer;

/**
 * Reusable read-only view of a fields section: getters read the bytes in place, so walking it creates no objects.
 * Values are only trustworthy after {@link FieldsSectionDescriptor#checkSection} (and, for a variable column's
 * offsets, {@link FieldsSectionDescriptor#checkOffsets}) passed for the same bytes. Offsets it returns are
 * relative to the section's start.
 */
public final class FieldsSectionFlyweight {
    private DirectBuffer buffer;
    private int base;

    /** Points this view at the section at {@code base} of {@code buffer}. Pure: checks nothing. */
    public FieldsSectionFlyweight wrap(DirectBuffer buffer, int base) {
        this.buffer = buffer;
        this.base = base;
        return this;
    }

    public int base() {
        return base;
    }

    public long fieldCount() {
        return buffer.getInt(base + FIELD_COUNT_OFFSET, LITTLE_ENDIAN) & 0xFFFFFFFFL;
    }

    public long recordCount() {
        return buffer.getLong(base + RECORD_COUNT_OFFSET, LITTLE_ENDIAN);
    }

    public int columnTypeId(int field) {
        return buffer.getByte(base + columnEntryOffset(field) + COLUMN_TYPE_OFFSET) & 0xFF;
    }

    /** Elements per record of a fixed column; 0 for a variable one. */
    public long columnElements(int field) {
        return buffer.getInt(base + columnEntryOffset(field) + COLUMN_ELEMENTS_OFFSET, LITTLE_ENDIAN) & 0xFFFFFFFFL;
    }

    public long columnOffset(int field) {
        return buffer.getLong(base + columnEntryOffset(field) + COLUMN_OFFSET_OFFSET, LITTLE_ENDIAN);
    }

    public long columnLength(int field) {
        return buffer.getLong(base + columnEntryOffset(field) + COLUMN_LENGTH_OFFSET, LITTLE_ENDIAN);
    }

    /** Entry {@code n} (0..N) of variable column {@code field}'s offsets array: relative to its values. */
    public long variableOffset(int field, long n) {
        return buffer.getLong(base + (int) (columnOffset(field) + n * OFFSET_BYTES), LITTLE_ENDIAN);
    }
}
