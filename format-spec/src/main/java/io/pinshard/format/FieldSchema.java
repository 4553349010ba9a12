package io.pinshard.format;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.pinshard.format.ShardFormatException.Kind;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One field of a dataset's schema (SPEC.md section 17): its name, type and, for a numeric type, how many
 * elements every record holds ({@code length >= 1}) or {@link #VARIABLE} (0: each record its own count). Byte
 * types (utf8, bytes, json) are always variable. In JSON: {@code {"name": "box", "type": "float32", "length": 4}},
 * {@code length} omitted when variable. The schema is the manifest's {@code fields} and every shard's metadata
 * {@code fields}, in column order.
 */
@JsonPropertyOrder({"name", "type", "length"})
public record FieldSchema(String name, FieldType type, @JsonInclude(JsonInclude.Include.NON_DEFAULT) int length) {
    /** The {@link #length} of a field whose records each have their own element count. */
    public static final int VARIABLE = 0;
    /** Most fields in one schema. */
    public static final int MAX_FIELDS = 255;
    /** Most elements of a fixed-length numeric field. */
    public static final int MAX_FIXED_LENGTH = 65_535;
    /** Field names: 1 to 64 characters of letters, digits, '_', '-' and '.', starting with a letter or '_'. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.-]{0,63}");

    public FieldSchema {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
    }

    /** A variable-length field. */
    public static FieldSchema variable(String name, FieldType type) {
        return new FieldSchema(name, type, VARIABLE);
    }

    /** A numeric field of exactly {@code length} elements per record. */
    public static FieldSchema fixed(String name, FieldType type, int length) {
        return new FieldSchema(name, type, length);
    }

    @JsonIgnore
    public boolean isFixed() {
        return length != VARIABLE;
    }

    /** Bytes each record's value takes in a fixed-width column (0 for a variable field). */
    @JsonIgnore
    public long fixedBytes() {
        return (long) length * type.elementBytes();
    }

    /** {@code name:type[length]} as {@code inspect} shows it, e.g. {@code box:float32[4]}, {@code tags:int32[]}. */
    public String describe() {
        if (!type.isNumeric()) {
            return name + ":" + type.label();
        }
        return name + ":" + type.label() + "[" + (isFixed() ? Integer.toString(length) : "") + "]";
    }

    /**
     * Checks a schema (SPEC.md section 17.1): at most {@value #MAX_FIELDS} fields, each with a valid, unique name,
     * a known type and a length that fits its type.
     *
     * @throws ShardFormatException of kind {@link Kind#BAD_MANIFEST} naming the field
     */
    public static void checkSchema(List<FieldSchema> fields) {
        if (fields.size() > MAX_FIELDS) {
            throw new ShardFormatException(Kind.BAD_MANIFEST, "schema has " + fields.size() + " fields, more than "
                + MAX_FIELDS);
        }
        Set<String> names = new HashSet<>();
        for (int f = 0; f < fields.size(); f++) {
            FieldSchema field = fields.get(f);
            if (field == null || field.name() == null || field.type() == null) {
                throw new ShardFormatException(Kind.BAD_MANIFEST, "fields[" + f + "] lacks a name or a type");
            }
            if (!NAME.matcher(field.name()).matches()) {
                throw new ShardFormatException(Kind.BAD_MANIFEST, "field name " + Printable.escape("\"" + field.name()
                    + "\"") + " is not 1-64 letters, digits, '_', '-' or '.' starting with a letter or '_'");
            }
            if (!names.add(field.name())) {
                throw new ShardFormatException(Kind.BAD_MANIFEST, "field " + field.name() + " is listed twice");
            }
            if (field.length() < 0 || field.length() > MAX_FIXED_LENGTH
                || !field.type().isNumeric() && field.length() != VARIABLE) {
                throw new ShardFormatException(Kind.BAD_MANIFEST, "field " + field.name() + " of type "
                    + field.type().label() + " cannot have length " + field.length()
                    + (field.type().isNumeric() ? " (1.." + MAX_FIXED_LENGTH + ", or none for variable)"
                    : " (byte types are variable-length)"));
            }
        }
    }

    /** Position of field {@code name} in {@code fields}, or -1. */
    public static int indexOf(List<FieldSchema> fields, String name) {
        for (int f = 0; f < fields.size(); f++) {
            if (fields.get(f).name().equals(name)) {
                return f;
            }
        }
        return -1;
    }
}
