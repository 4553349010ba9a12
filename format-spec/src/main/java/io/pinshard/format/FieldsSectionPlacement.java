package io.pinshard.format;

import io.pinshard.format.ShardFormatException.Kind;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a shard's fields section lies and what it holds, as its metadata says (SPEC.md section 17.2): the
 * schema under {@value #FIELDS_KEY} and {@value #SECTION_KEY} {@code {"offset", "length", "crc32c"}}, offset and
 * length relative to the key table. {@link #of} checks everything before a number is used.
 *
 * @param offset from the key table's start, a multiple of 8
 * @param length bytes
 * @param crc32c CRC32C of the section's bytes
 */
public record FieldsSectionPlacement(long offset, long length, int crc32c) {
    public static final String FIELDS_KEY = "fields";
    public static final String SECTION_KEY = "fieldsSection";

    /** The {@value #SECTION_KEY} object of the shard metadata. */
    public Map<String, Object> toMetadata() {
        Map<String, Object> section = new LinkedHashMap<>();
        section.put("crc32c", Crc32c.hex(crc32c));
        section.put("length", length);
        section.put("offset", offset);
        return section;
    }

    /** The schema the metadata (or a manifest's {@code fields}) lists; empty without one. Checks it. */
    public static List<FieldSchema> schemaOf(Object fields) {
        if (fields == null) {
            return List.of();
        }
        FieldSchema[] array;
        try {
            array = Json.MAPPER.convertValue(fields, FieldSchema[].class);
        } catch (IllegalArgumentException e) {
            throw new ShardFormatException(Kind.BAD_FIELDS, "fields schema is malformed: " + e.getMessage());
        }
        for (int f = 0; f < array.length; f++) {
            if (array[f] == null) {
                throw new ShardFormatException(Kind.BAD_FIELDS, "fields[" + f + "] is null, not a field");
            }
        }
        List<FieldSchema> schema = List.of(array);
        FieldSchema.checkSchema(schema);
        return schema;
    }

    /**
     * The placement a shard's parsed metadata gives, checked against its key table of {@code keyTableLength}
     * bytes: present, integers, {@code offset % 8 == 0}, {@code offset + length <= K}, a CRC of 8 hex digits.
     */
    public static FieldsSectionPlacement of(Map<String, Object> metadata, long keyTableLength) {
        if (!(metadata.get(SECTION_KEY) instanceof Map<?, ?> section)) {
            throw new ShardFormatException(Kind.BAD_FIELDS, "shard metadata lists fields but no " + SECTION_KEY
                + " object");
        }
        long offset = integer(section.get("offset"), "offset");
        long length = integer(section.get("length"), "length");
        if (!(section.get("crc32c") instanceof String crc) || !crc.matches("[0-9a-f]{8}")) {
            throw new ShardFormatException(Kind.BAD_FIELDS, SECTION_KEY + ".crc32c is not 8 lower-case hex digits");
        }
        if (offset % FieldsSectionDescriptor.ALIGNMENT != 0 || offset > keyTableLength
            || length > keyTableLength - offset) {
            throw new ShardFormatException(Kind.OFFSET_OUT_OF_BOUNDS, "fields section [" + offset + ", +" + length
                + ") is not an 8-aligned span of the " + keyTableLength + "-byte key table");
        }
        return new FieldsSectionPlacement(offset, length, Integer.parseUnsignedInt(crc, 16));
    }

    private static long integer(Object value, String name) {
        if (!(value instanceof Integer || value instanceof Long) || ((Number) value).longValue() < 0) {
            throw new ShardFormatException(Kind.BAD_FIELDS, SECTION_KEY + "." + name + " is not a non-negative integer");
        }
        return ((Number) value).longValue();
    }
}
