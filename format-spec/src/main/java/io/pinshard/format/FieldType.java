package io.pinshard.format;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * The type of a record field (SPEC.md section 17). The id is the byte stored in the fields section's column
 * directory; the label is the name in JSON. Byte types (utf8, bytes, json) are variable-length byte strings;
 * numeric types are little-endian arrays, of a fixed or variable element count per record.
 */
public enum FieldType {
    /** UTF-8 text, not NUL-terminated. */
    UTF8(1, "utf8", 1),
    /** Arbitrary bytes. */
    BYTES(2, "bytes", 1),
    /** One JSON value (RFC 8259) as UTF-8 text. */
    JSON(3, "json", 1),
    /** Signed 32-bit integers, little-endian. */
    INT32(4, "int32", 4),
    /** Signed 64-bit integers, little-endian. */
    INT64(5, "int64", 8),
    /** IEEE 754 binary32 floats, little-endian. */
    FLOAT32(6, "float32", 4);

    private static final FieldType[] BY_ID = {null, UTF8, BYTES, JSON, INT32, INT64, FLOAT32};

    private final int id;
    private final String label;
    private final int elementBytes;

    FieldType(int id, String label, int elementBytes) {
        this.id = id;
        this.label = label;
        this.elementBytes = elementBytes;
    }

    public int id() {
        return id;
    }

    /** Lower-case name used in JSON and on the command line. */
    @JsonValue
    public String label() {
        return label;
    }

    /** Bytes per element: 1 for the byte types, 4 or 8 for the numeric ones. */
    public int elementBytes() {
        return elementBytes;
    }

    /** Whether values are arrays of numbers (which may have a fixed element count), not byte strings. */
    public boolean isNumeric() {
        return elementBytes > 1;
    }

    /** The type for a stored id, or {@code null} when the id is unknown (the caller reports it). */
    public static FieldType fromId(int id) {
        return id > 0 && id < BY_ID.length ? BY_ID[id] : null;
    }

    @JsonCreator
    public static FieldType fromLabel(String label) {
        for (FieldType type : values()) {
            if (type.label.equals(label)) {
                return type;
            }
        }
        throw new IllegalArgumentException("unknown field type '" + label
            + "' (expected utf8, bytes, json, int32, int64 or float32)");
    }
}
