package io.pinshard.writer;

import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldsSectionDescriptor;
import java.nio.ByteOrder;
import java.util.List;
import org.agrona.BitUtil;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * One shard's field columns while it is written: each record's values appended to its field's column (and, for a
 * variable field, its end offset to the offsets array), laid out as a fields section by {@link #writeSection}
 * (SPEC.md section 17.3). Held in memory until the shard is finished, as the keys are.
 */
final class FieldColumns {
    private final List<FieldSchema> schema;
    private final ExpandableDirectByteBuffer[] values;
    private final ExpandableDirectByteBuffer[] offsets;
    private final long[] valueBytes;
    private long records;

    FieldColumns(List<FieldSchema> schema) {
        this.schema = schema;
        this.values = new ExpandableDirectByteBuffer[schema.size()];
        this.offsets = new ExpandableDirectByteBuffer[schema.size()];
        this.valueBytes = new long[schema.size()];
        for (int f = 0; f < schema.size(); f++) {
            values[f] = new ExpandableDirectByteBuffer(4096);
            if (!schema.get(f).isFixed()) {
                offsets[f] = new ExpandableDirectByteBuffer(4096);
                offsets[f].putLong(0, 0L, ByteOrder.LITTLE_ENDIAN);
            }
        }
    }

    /** Appends one record's values; {@code record} null stores every field empty (only variable fields may be). */
    void add(FieldValues record) {
        if (record != null && record.schema() != schema && !record.schema().equals(schema)) {
            throw new IllegalArgumentException("field values are for the schema " + record.schema()
                + ", the shard's is " + schema);
        }
        if (record != null) {
            record.checkComplete();
        } else {
            for (FieldSchema field : schema) {
                if (field.isFixed()) {
                    throw new IllegalArgumentException("field " + field.name() + " has a fixed length and no value");
                }
            }
        }
        for (int f = 0; f < schema.size(); f++) {
            int length = record == null ? 0 : record.length(f);
            if (valueBytes[f] + length > Integer.MAX_VALUE - 64) {
                throw new IllegalArgumentException("field " + schema.get(f).name() + " outgrows one shard");
            }
            if (length > 0) {
                values[f].putBytes((int) valueBytes[f], record.encoded(f), 0, length);
            }
            valueBytes[f] += length;
            if (offsets[f] != null) {
                offsets[f].putLong((int) ((records + 1) * FieldsSectionDescriptor.OFFSET_BYTES), valueBytes[f],
                    ByteOrder.LITTLE_ENDIAN);
            }
        }
        records++;
    }

    /** Section length with {@code extraRecords} more records of {@code extra}'s sizes (null: none). */
    long sectionLength(FieldValues extra, int extraRecords) {
        long end = FieldsSectionDescriptor.columnsStart(schema.size());
        long count = records + extraRecords;
        for (int f = 0; f < schema.size(); f++) {
            long bytes = valueBytes[f] + (extra == null ? 0 : extra.length(f)) * (long) extraRecords;
            long column = schema.get(f).isFixed() ? bytes : FieldsSectionDescriptor.variableColumnLength(count, bytes);
            end = (f == 0 ? end : BitUtil.align(end, FieldsSectionDescriptor.ALIGNMENT)) + column;
        }
        return end;
    }

    long sectionLength() {
        return sectionLength(null, 0);
    }

    /**
     * Writes the section at {@code base} of {@code out} (which grows as needed): header, directory, columns at
     * 8-aligned offsets, zero gaps. Returns its length.
     */
    long writeSection(MutableDirectBuffer out, int base) {
        int fields = schema.size();
        long start = FieldsSectionDescriptor.columnsStart(fields);
        out.setMemory(base, (int) start, (byte) 0);
        FieldsSectionDescriptor.writeHeader(out, base, fields, records);
        long at = start;
        for (int f = 0; f < fields; f++) {
            long aligned = BitUtil.align(at, FieldsSectionDescriptor.ALIGNMENT);
            if (aligned > at) {
                out.setMemory(base + (int) at, (int) (aligned - at), (byte) 0);
            }
            at = aligned;
            long columnStart = at;
            if (offsets[f] != null) {
                int offsetBytes = (int) ((records + 1) * FieldsSectionDescriptor.OFFSET_BYTES);
                out.putBytes(base + (int) at, offsets[f], 0, offsetBytes);
                at += offsetBytes;
            }
            out.putBytes(base + (int) at, values[f], 0, (int) valueBytes[f]);
            at += valueBytes[f];
            FieldsSectionDescriptor.writeColumn(out, base, f, schema.get(f), columnStart, at - columnStart);
        }
        return at;
    }
}
