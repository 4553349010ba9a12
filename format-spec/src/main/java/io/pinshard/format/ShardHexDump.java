package io.pinshard.format;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

import java.util.ArrayList;
import java.util.List;
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
        keys(s, entry);
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
        if (!field.name().equals("codec")) {
            return "";
        }
        Codec codec = Codec.fromId((int) raw);
        return codec == null ? " (unknown)" : " (" + codec.label() + ")";
    }

    /** One text span per key when the keys tile the table in record order (as writers lay them out). */
    private void keys(ShardStructure s, IndexEntryFlyweight entry) {
        long expected = 0;
        for (long i = 0; i < s.recordCount(); i++) {
            entry.wrap(file, s.entryOffset(i));
            if (entry.keyOffset() != expected) {
                text(s.keyTableOffset(), s.keyTableLength(), "key table");
                return;
            }
            expected += entry.keyLength();
        }
        if (expected != s.keyTableLength()) {
            text(s.keyTableOffset(), s.keyTableLength(), "key table");
            return;
        }
        for (long i = 0; i < s.recordCount(); i++) {
            entry.wrap(file, s.entryOffset(i));
            text(s.keyTableOffset() + entry.keyOffset(), entry.keyLength(), "key[" + i + "]");
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
