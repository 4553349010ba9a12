package io.pinshard.writer;

import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldType;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableDirectByteBuffer;

/**
 * One record's field values, staged for {@link DatasetWriter#appendPayload} (or {@link ShardWriter#append}): a
 * reusable fluent encoder over a schema, {@code values.clear().utf8("caption", text).int32("label2", 3)}. Values
 * are encoded as they are set (little-endian), checked against the field's type and fixed length; a field left
 * unset is empty, which only a variable-length field may be. Not thread-safe: one per writing thread.
 */
public final class FieldValues {
    private final List<FieldSchema> schema;
    private final ExpandableDirectByteBuffer[] values;
    private final int[] lengths;
    private final boolean[] set;

    public FieldValues(List<FieldSchema> schema) {
        FieldSchema.checkSchema(schema);
        this.schema = List.copyOf(schema);
        this.values = new ExpandableDirectByteBuffer[schema.size()];
        this.lengths = new int[schema.size()];
        this.set = new boolean[schema.size()];
        for (int f = 0; f < values.length; f++) {
            values[f] = new ExpandableDirectByteBuffer(64);
        }
    }

    public List<FieldSchema> schema() {
        return schema;
    }

    /** Unsets every field, for the next record. */
    public FieldValues clear() {
        java.util.Arrays.fill(set, false);
        java.util.Arrays.fill(lengths, 0);
        return this;
    }

    /** Position of field {@code name}; {@link IllegalArgumentException} when the schema has no such field. */
    public int field(String name) {
        int f = FieldSchema.indexOf(schema, name);
        if (f < 0) {
            throw new IllegalArgumentException("no field " + name + " in the schema " + describe());
        }
        return f;
    }

    public FieldValues utf8(String name, CharSequence text) {
        return utf8(field(name), text);
    }

    public FieldValues utf8(int f, CharSequence text) {
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        return put(f, FieldType.UTF8, bytes, 0, bytes.length);
    }

    /** A JSON value as text; the writer does not parse it ({@code verify} does). */
    public FieldValues json(String name, CharSequence json) {
        int f = field(name);
        byte[] bytes = json.toString().getBytes(StandardCharsets.UTF_8);
        return put(f, FieldType.JSON, bytes, 0, bytes.length);
    }

    public FieldValues bytes(String name, byte[] bytes) {
        return bytes(field(name), bytes, 0, bytes.length);
    }

    /** Bytes for a field of any byte type (utf8, bytes, json): the caller vouches for their encoding. */
    public FieldValues bytes(int f, byte[] bytes, int offset, int length) {
        return put(f, null, bytes, offset, length);
    }

    /** As {@link #bytes(int, byte[], int, int)} from a buffer. */
    public FieldValues bytes(int f, DirectBuffer source, int offset, int length) {
        start(f, null, length);
        values[f].putBytes(0, source, offset, length);
        return finish(f, length);
    }

    /**
     * Field {@code f}'s value already in its stored form (SPEC.md section 17.1: UTF-8 or bytes, or little-endian
     * elements), checked for whole elements and, for a fixed field, the element count.
     */
    public FieldValues encoded(int f, byte[] bytes, int offset, int length) {
        FieldSchema field = schema.get(f);
        int width = field.type().elementBytes();
        if (length % width != 0) {
            throw new IllegalArgumentException("field " + field.name() + " takes whole " + width + "-byte elements, not "
                + length + " bytes");
        }
        start(f, field.type(), length / width);
        values[f].putBytes(0, bytes, offset, length);
        return finish(f, length);
    }

    public FieldValues int32(String name, int... elements) {
        int f = field(name);
        start(f, FieldType.INT32, elements.length);
        for (int i = 0; i < elements.length; i++) {
            values[f].putInt(i * 4, elements[i], ByteOrder.LITTLE_ENDIAN);
        }
        return finish(f, elements.length * 4);
    }

    public FieldValues int64(String name, long... elements) {
        int f = field(name);
        start(f, FieldType.INT64, elements.length);
        for (int i = 0; i < elements.length; i++) {
            values[f].putLong(i * 8, elements[i], ByteOrder.LITTLE_ENDIAN);
        }
        return finish(f, elements.length * 8);
    }

    public FieldValues float32(String name, float... elements) {
        int f = field(name);
        start(f, FieldType.FLOAT32, elements.length);
        for (int i = 0; i < elements.length; i++) {
            values[f].putFloat(i * 4, elements[i], ByteOrder.LITTLE_ENDIAN);
        }
        return finish(f, elements.length * 4);
    }

    /** Whether field {@code f} was set since {@link #clear()}. */
    public boolean isSet(int f) {
        return set[f];
    }

    /** Encoded bytes of field {@code f} (0 when unset). */
    public int length(int f) {
        return lengths[f];
    }

    /** The encoded value of field {@code f}: bytes {@code [0, length(f))}. */
    public DirectBuffer encoded(int f) {
        return values[f];
    }

    /** Checks that every fixed-length field is set: what a record must have before it is stored. */
    void checkComplete() {
        for (int f = 0; f < schema.size(); f++) {
            if (!set[f] && schema.get(f).isFixed()) {
                throw new IllegalArgumentException("field " + schema.get(f).name() + " (" + schema.get(f).describe()
                    + ") has a fixed length and no value");
            }
        }
    }

    private FieldValues put(int f, FieldType type, byte[] bytes, int offset, int length) {
        start(f, type, length);
        values[f].putBytes(0, bytes, offset, length);
        return finish(f, length);
    }

    /** Checks the field's type (null: any byte type) and, for a fixed field, the element count. */
    private FieldSchema start(int f, FieldType type, int elements) {
        FieldSchema field = schema.get(f);
        boolean fits = type == null ? !field.type().isNumeric() : field.type() == type;
        if (!fits) {
            throw new IllegalArgumentException("field " + field.name() + " is " + field.describe() + ", not "
                + (type == null ? "a byte string" : type.label()));
        }
        if (field.isFixed() && elements != field.length()) {
            throw new IllegalArgumentException("field " + field.name() + " holds " + field.length()
                + " elements per record, not " + elements);
        }
        return field;
    }

    private FieldValues finish(int f, int length) {
        set[f] = true;
        lengths[f] = length;
        return this;
    }

    private String describe() {
        StringBuilder text = new StringBuilder("[");
        for (FieldSchema field : schema) {
            text.append(text.length() > 1 ? ", " : "").append(field.describe());
        }
        return text.append(']').toString();
    }
}
