package io.pinshard.format;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.agrona.DirectBuffer;

/**
 * Renders a shard as an annotated hex dump: one line per header, index-entry and footer field
 * ({@code index[0].payloadOffset = 64}), payloads, keys and metadata wrapped at 16 bytes, and zero
 * padding longer than 16 bytes collapsed to one line. The field tables are built from the descriptor
 * constants, so the dumps in SPEC.md follow the code. The shard is validated first
 * ({@link ShardStructure#read}); a broken shard is refused, not dumped.
 */
public final class ShardHexDump {
    /** Bytes shown per line. */
    static final int LINE_BYTES = 16;
    /** Data spans longer than this show their first and last bytes only. */
    static final int ELIDE_ABOVE = 96;
    private static final int HEAD_BYTES = 48;
    private static final int HEX_COLUMN = LINE_BYTES * 3 - 1;

    /** How a field's value is shown in its annotation. */
    enum Type { ASCII, UNSIGNED, SIGNED, CRC, ZERO }

    /** One fixed-size field of a header, index entry or footer. */
    record Field(String name, int offset, int size, Type type) {
    }

    static final List<Field> HEADER_FIELDS = List.of(
        new Field("magic", ShardHeaderDescriptor.MAGIC_OFFSET, 8, Type.ASCII),
        new Field("majorVersion", ShardHeaderDescriptor.MAJOR_VERSION_OFFSET, 2, Type.UNSIGNED),
        new Field("minorVersion", ShardHeaderDescriptor.MINOR_VERSION_OFFSET, 2, Type.UNSIGNED),
        new Field("headerLength", ShardHeaderDescriptor.HEADER_LENGTH_OFFSET, 4, Type.UNSIGNED),
        new Field("alignment", ShardHeaderDescriptor.ALIGNMENT_OFFSET, 4, Type.UNSIGNED),
        new Field("flags", ShardHeaderDescriptor.FLAGS_OFFSET, 4, Type.UNSIGNED),
        new Field("shardNumber", ShardHeaderDescriptor.SHARD_NUMBER_OFFSET, 4, Type.UNSIGNED),
        new Field("reserved", ShardHeaderDescriptor.RESERVED_OFFSET, ShardHeaderDescriptor.RESERVED_LENGTH, Type.ZERO),
        new Field("crc32c", ShardHeaderDescriptor.CRC_OFFSET, 4, Type.CRC));

    static final List<Field> INDEX_ENTRY_FIELDS = List.of(
        new Field("payloadOffset", IndexEntryDescriptor.PAYLOAD_OFFSET_OFFSET, 8, Type.UNSIGNED),
        new Field("payloadLength", IndexEntryDescriptor.PAYLOAD_LENGTH_OFFSET, 4, Type.UNSIGNED),
        new Field("payloadCrc", IndexEntryDescriptor.PAYLOAD_CRC_OFFSET, 4, Type.CRC),
        new Field("height", IndexEntryDescriptor.HEIGHT_OFFSET, 4, Type.UNSIGNED),
        new Field("width", IndexEntryDescriptor.WIDTH_OFFSET, 4, Type.UNSIGNED),
        new Field("label", IndexEntryDescriptor.LABEL_OFFSET, 4, Type.SIGNED),
        new Field("keyOffset", IndexEntryDescriptor.KEY_OFFSET_OFFSET, 4, Type.UNSIGNED),
        new Field("keyLength", IndexEntryDescriptor.KEY_LENGTH_OFFSET, 2, Type.UNSIGNED),
        new Field("codec", IndexEntryDescriptor.CODEC_OFFSET, 1, Type.UNSIGNED),
        new Field("channels", IndexEntryDescriptor.CHANNELS_OFFSET, 1, Type.UNSIGNED),
        new Field("reserved", IndexEntryDescriptor.RESERVED_OFFSET, 4, Type.UNSIGNED));

    static final List<Field> FOOTER_FIELDS = List.of(
        new Field("recordCount", ShardFooterDescriptor.RECORD_COUNT_OFFSET, 8, Type.UNSIGNED),
        new Field("indexOffset", ShardFooterDescriptor.INDEX_OFFSET_OFFSET, 8, Type.UNSIGNED),
        new Field("keyTableLength", ShardFooterDescriptor.KEY_TABLE_LENGTH_OFFSET, 4, Type.UNSIGNED),
        new Field("metadataLength", ShardFooterDescriptor.METADATA_LENGTH_OFFSET, 4, Type.UNSIGNED),
        new Field("fileLength", ShardFooterDescriptor.FILE_LENGTH_OFFSET, 8, Type.UNSIGNED),
        new Field("indexCrc", ShardFooterDescriptor.INDEX_CRC_OFFSET, 4, Type.CRC),
        new Field("keyTableCrc", ShardFooterDescriptor.KEY_TABLE_CRC_OFFSET, 4, Type.CRC),
        new Field("metadataCrc", ShardFooterDescriptor.METADATA_CRC_OFFSET, 4, Type.CRC),
        new Field("crc32c", ShardFooterDescriptor.FOOTER_CRC_OFFSET, 4, Type.CRC),
        new Field("reserved", ShardFooterDescriptor.RESERVED_OFFSET, ShardFooterDescriptor.RESERVED_LENGTH, Type.ZERO),
        new Field("endMagic", ShardFooterDescriptor.END_MAGIC_OFFSET, 8, Type.ASCII));

    static final List<Field> FIELDS_HEADER_FIELDS = List.of(
        new Field("magic", FieldsSectionDescriptor.MAGIC_OFFSET, 8, Type.ASCII),
        new Field("fieldCount", FieldsSectionDescriptor.FIELD_COUNT_OFFSET, 4, Type.UNSIGNED),
        new Field("reserved", FieldsSectionDescriptor.RESERVED_OFFSET, 4, Type.UNSIGNED),
        new Field("recordCount", FieldsSectionDescriptor.RECORD_COUNT_OFFSET, 8, Type.UNSIGNED));

    static final List<Field> COLUMN_FIELDS = List.of(
        new Field("type", FieldsSectionDescriptor.COLUMN_TYPE_OFFSET, 1, Type.UNSIGNED),
        new Field("reserved", FieldsSectionDescriptor.COLUMN_RESERVED_OFFSET,
            FieldsSectionDescriptor.COLUMN_RESERVED_LENGTH, Type.ZERO),
        new Field("elements", FieldsSectionDescriptor.COLUMN_ELEMENTS_OFFSET, 4, Type.UNSIGNED),
        new Field("offset", FieldsSectionDescriptor.COLUMN_OFFSET_OFFSET, 8, Type.UNSIGNED),
        new Field("length", FieldsSectionDescriptor.COLUMN_LENGTH_OFFSET, 8, Type.UNSIGNED));

    private final DirectBuffer file;
    private final StringBuilder out = new StringBuilder();

    private ShardHexDump(DirectBuffer file) {
        this.file = file;
    }

    /** The annotated dump of the shard held in {@code file} (its capacity is the file length). */
    public static String render(DirectBuffer file) {
        ShardStructure structure = ShardStructure.read(file, new Crc32c(), true);
        return new ShardHexDump(file).dump(structure);
    }

    private String dump(ShardStructure s) {
        fields("header", 0, HEADER_FIELDS);
        IndexEntryFlyweight entry = new IndexEntryFlyweight();
        long position = ShardHeaderDescriptor.LENGTH;
        for (long i = 0; i < s.recordCount(); i++) {
            entry.wrap(file, s.entryOffset(i));
            long start = entry.payloadOffset();
            zeros(position, start, "padding to the " + s.alignment() + "-byte payload alignment");
            Codec codec = Codec.fromId(entry.codecId());
            data(start, entry.payloadLength(), "record[" + i + "] payload: " + codec.label() + " " + entry.height()
                + "x" + entry.width() + "x" + entry.channels() + ", " + entry.payloadLength() + " bytes");
            position = start + entry.payloadLength();
        }
        zeros(position, s.indexOffset(), "padding to 8 before the index");
        for (long i = 0; i < s.recordCount(); i++) {
            fields("index[" + i + "]", s.entryOffset(i), INDEX_ENTRY_FIELDS);
        }
        FieldsLayout fields = fieldsLayout(s);
        long keysEnd = fields == null ? s.keyTableLength() : fields.placement().offset();
        long keysWritten = keys(s, entry, keysEnd);
        if (fields != null) {
            zeros(s.keyTableOffset() + keysWritten, s.keyTableOffset() + keysEnd, "padding to 8 before the fields section");
            fieldsSection(s, fields);
            long end = fields.placement().offset() + fields.placement().length();
            if (end < s.keyTableLength()) {
                text(s.keyTableOffset() + end, s.keyTableLength() - end, "key table (rest)");
            }
        }
        text(s.metadataOffset(), s.metadataLength(), "metadata");
        zeros(s.metadataOffset() + s.metadataLength(), s.footerOffset(), "padding to 8 before the footer");
        fields("footer", s.footerOffset(), FOOTER_FIELDS);
        return out.toString();
    }

    private void fields(String prefix, long base, List<Field> fields) {
        for (Field field : fields) {
            int at = (int) (base + field.offset());
            String name = prefix + "." + field.name();
            if (field.type() == Type.ZERO) {
                zeros(at, at + field.size(), name + " (must be zero)");
                continue;
            }
            line(at, field.size(), name + " = " + value(at, field));
        }
    }

    private String value(int at, Field field) {
        long raw = switch (field.size()) {
            case 1 -> file.getByte(at) & 0xFFL;
            case 2 -> file.getShort(at, LITTLE_ENDIAN) & 0xFFFFL;
            case 4 -> file.getInt(at, LITTLE_ENDIAN) & 0xFFFFFFFFL;
            default -> file.getLong(at, LITTLE_ENDIAN);
        };
        return switch (field.type()) {
            case ASCII -> "\"" + ascii(at, field.size()) + "\"";
            case CRC -> String.format("0x%08x", raw);
            case SIGNED -> Integer.toString((int) raw);
            default -> Long.toUnsignedString(raw) + codecName(field, raw);
        };
    }

    private static String codecName(Field field, long raw) {
        if (field.name().equals("type")) {
            FieldType type = FieldType.fromId((int) raw);
            return type == null ? " (unknown)" : " (" + type.label() + ")";
        }
        if (!field.name().equals("codec")) {
            return "";
        }
        Codec codec = Codec.fromId((int) raw);
        return codec == null ? " (unknown)" : " (" + codec.label() + ")";
    }

    /**
     * One text span per key when the keys tile {@code [0, limit)} of the table in record order (as writers lay them
     * out; with fields, up to the 7 bytes of padding before the section), else the span as one; returns where the
     * dumped keys end, relative to the table.
     */
    private long keys(ShardStructure s, IndexEntryFlyweight entry, long limit) {
        long expected = 0;
        for (long i = 0; i < s.recordCount(); i++) {
            entry.wrap(file, s.entryOffset(i));
            if (entry.keyOffset() != expected) {
                text(s.keyTableOffset(), limit, "key table");
                return limit;
            }
            expected += entry.keyLength();
        }
        if (expected > limit || (limit == s.keyTableLength() ? expected != limit
            : FieldsSectionDescriptor.sectionOffset(expected) != limit)) {
            text(s.keyTableOffset(), limit, "key table");
            return limit;
        }
        for (long i = 0; i < s.recordCount(); i++) {
            entry.wrap(file, s.entryOffset(i));
            text(s.keyTableOffset() + entry.keyOffset(), entry.keyLength(), "key[" + i + "]");
        }
        return expected;
    }

    /** A shard's checked fields section: its schema, placement and absolute offset. */
    private record FieldsLayout(List<FieldSchema> schema, FieldsSectionPlacement placement, int base) {
    }

    /** The fields section the metadata describes, checked as a reader checks it; null without fields. */
    private FieldsLayout fieldsLayout(ShardStructure s) {
        byte[] json = new byte[(int) s.metadataLength()];
        file.getBytes((int) s.metadataOffset(), json);
        Map<String, Object> metadata;
        try {
            metadata = Json.parseObject(json);
        } catch (IOException e) {
            return null; // metadata that is not JSON describes no fields; the dump shows it as text
        }
        if (metadata == null) {
            return null;
        }
        List<FieldSchema> schema = FieldsSectionPlacement.schemaOf(metadata.get(FieldsSectionPlacement.FIELDS_KEY));
        if (schema.isEmpty()) {
            return null;
        }
        FieldsSectionPlacement placement = FieldsSectionPlacement.of(metadata, s.keyTableLength());
        int base = (int) (s.keyTableOffset() + placement.offset());
        FieldsSectionDescriptor.checkSection(file, base, placement.length(), s.recordCount(), schema);
        FieldsSectionFlyweight section = new FieldsSectionFlyweight().wrap(file, base);
        for (int f = 0; f < schema.size(); f++) {
            if (!schema.get(f).isFixed()) {
                FieldsSectionDescriptor.checkOffsets(file, base + (int) section.columnOffset(f), section.columnLength(f),
                    s.recordCount(), schema.get(f));
            }
        }
        return new FieldsLayout(schema, placement, base);
    }

    /** Header, column directory, then each column: offsets one per line, each record's value. */
    private void fieldsSection(ShardStructure s, FieldsLayout layout) {
        int base = layout.base();
        List<FieldSchema> schema = layout.schema();
        fields("fields", base, FIELDS_HEADER_FIELDS);
        FieldsSectionFlyweight section = new FieldsSectionFlyweight().wrap(file, base);
        for (int f = 0; f < schema.size(); f++) {
            fields("fields.column[" + schema.get(f).name() + "]",
                base + FieldsSectionDescriptor.columnEntryOffset(f), COLUMN_FIELDS);
        }
        long position = base + FieldsSectionDescriptor.columnEntryOffset(schema.size());
        long records = s.recordCount();
        for (int f = 0; f < schema.size(); f++) {
            FieldSchema field = schema.get(f);
            long column = base + section.columnOffset(f);
            zeros(position, column, "padding to 8 before the next column");
            String name = "field " + field.name();
            long values = column;
            if (!field.isFixed()) {
                for (long n = 0; n <= records; n++) {
                    int at = (int) (column + n * FieldsSectionDescriptor.OFFSET_BYTES);
                    line(at, FieldsSectionDescriptor.OFFSET_BYTES, name + ".offsets[" + n + "] = "
                        + Long.toUnsignedString(file.getLong(at, LITTLE_ENDIAN)));
                }
                values += (records + 1) * FieldsSectionDescriptor.OFFSET_BYTES;
            }
            for (long n = 0; n < records; n++) {
                long start = field.isFixed() ? n * field.fixedBytes() : section.variableOffset(f, n);
                long end = field.isFixed() ? start + field.fixedBytes() : section.variableOffset(f, n + 1);
                String label = name + " record[" + n + "]";
                if (start == end) {
                    continue; // an empty value has no bytes to show
                }
                if (field.type().isNumeric()) {
                    wrappedNumbers(values + start, end - start, field.type(), label);
                } else if (field.type() == FieldType.BYTES) {
                    data(values + start, end - start, label + ", " + (end - start) + " bytes");
                } else {
                    text(values + start, end - start, label);
                }
            }
            position = column + section.columnLength(f);
        }
    }

    /** Numbers wrapped at 16 bytes, each line glossed with its values. */
    private void wrappedNumbers(long start, long length, FieldType type, String name) {
        int width = type.elementBytes();
        for (long done = 0; done < length; done += LINE_BYTES) {
            int n = (int) Math.min(LINE_BYTES, length - done);
            int at = (int) (start + done);
            StringBuilder values = new StringBuilder(done == 0 ? name + " = " : "");
            for (int i = 0; i < n; i += width) {
                values.append(i > 0 ? " " : "").append(switch (type) {
                    case INT32 -> Integer.toString(file.getInt(at + i, LITTLE_ENDIAN));
                    case INT64 -> Long.toString(file.getLong(at + i, LITTLE_ENDIAN));
                    default -> Float.toString(file.getFloat(at + i, LITTLE_ENDIAN));
                });
            }
            line(at, n, values.toString());
        }
    }

    /** Text wrapped at 16 bytes per line, each line glossed with its printable characters. */
    private void text(long start, long length, String name) {
        for (long done = 0; done < length; done += LINE_BYTES) {
            int n = (int) Math.min(LINE_BYTES, length - done);
            int at = (int) (start + done);
            line(at, n, (done == 0 ? name + " " : "") + "\"" + ascii(at, n) + "\"");
        }
    }

    private void data(long start, long length, String name) {
        if (length <= ELIDE_ABOVE) {
            wrapped(start, length, name);
            return;
        }
        wrapped(start, HEAD_BYTES, name);
        long skipped = length - HEAD_BYTES - LINE_BYTES;
        appendLine(start + HEAD_BYTES, "...", "(" + skipped + " bytes not shown)");
        wrapped(start + length - LINE_BYTES, LINE_BYTES, "");
    }

    private void wrapped(long start, long length, String name) {
        for (long done = 0; done < length; done += LINE_BYTES) {
            int n = (int) Math.min(LINE_BYTES, length - done);
            line((int) (start + done), n, done == 0 ? name : "");
        }
    }

    /** A run of bytes that must be zero; shown literally up to 16 bytes, else as one collapsed line. */
    private void zeros(long from, long to, String name) {
        long length = to - from;
        if (length <= 0) {
            return;
        }
        if (length <= LINE_BYTES) {
            line((int) from, (int) length, name);
            return;
        }
        String hex = "00 (x " + length + ")";
        for (long at = from; at < to; at++) {
            if (file.getByte((int) at) != 0) {
                hex = "(" + length + " bytes, NOT all zero)";
                break;
            }
        }
        appendLine(from, hex, name);
    }

    private void line(int at, int length, String annotation) {
        StringBuilder hex = new StringBuilder(HEX_COLUMN);
        for (int i = 0; i < length; i++) {
            if (i > 0) {
                hex.append(' ');
            }
            hex.append(String.format("%02x", file.getByte(at + i) & 0xFF));
        }
        appendLine(at, hex.toString(), annotation);
    }

    private void appendLine(long at, String hex, String annotation) {
        String row = String.format("%08x  %-" + HEX_COLUMN + "s  %s", at, hex, annotation);
        out.append(row.stripTrailing()).append('\n');
    }

    private String ascii(int at, int length) {
        byte[] bytes = new byte[length];
        file.getBytes(at, bytes);
        StringBuilder text = new StringBuilder(length);
        for (byte b : bytes) {
            char c = (char) (b & 0xFF);
            if (c == '"' || c == '\\') {
                text.append('\\').append(c);
            } else {
                text.append(c >= 0x20 && c < 0x7F ? c : '.');
            }
        }
        return text.toString();
    }
}
