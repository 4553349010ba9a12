package io.pinshard.format;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

import io.pinshard.format.ShardFormatException.Kind;
import java.nio.charset.StandardCharsets;
import org.agrona.DirectBuffer;

/**
 * Layout of the 64-byte footer that ends every shard. The writer streams payloads first and writes
 * index, key table, metadata and this footer last, so a reader finds everything from the file's end.
 * All integers little-endian.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+ 0
 *  |                      Record count (u64)                       |
 *  |                                                               |
 *  +---------------------------------------------------------------+ 8
 *  |                 Index offset from file start (u64)            |
 *  |                                                               |
 *  +---------------------------------------------------------------+ 16
 *  |                  Key table length in bytes (u32)              |
 *  +---------------------------------------------------------------+ 20
 *  |                  Metadata length in bytes (u32)               |
 *  +---------------------------------------------------------------+ 24
 *  |                    File length in bytes (u64)                 |
 *  |                                                               |
 *  +---------------------------------------------------------------+ 32
 *  |                    CRC32C of the index (u32)                  |
 *  +---------------------------------------------------------------+ 36
 *  |                  CRC32C of the key table (u32)                |
 *  +---------------------------------------------------------------+ 40
 *  |                  CRC32C of the metadata (u32)                 |
 *  +---------------------------------------------------------------+ 44
 *  |              CRC32C of footer bytes 0..43 (u32)               |
 *  +---------------------------------------------------------------+ 48
 *  |                 Reserved (8 bytes, must be 0)                 |
 *  +---------------------------------------------------------------+ 56
 *  |                   End magic "DRAHSNIP" (8 bytes)              |
 *  +---------------------------------------------------------------+ 64
 * </pre>
 *
 * <p>Key table and metadata are not located by offsets of their own: they follow the index
 * directly, and the footer follows the metadata after zero padding to a multiple of 8, so the
 * sections tile the file with no room for unaccounted bytes.
 */
public final class ShardFooterDescriptor {
    public static final byte[] END_MAGIC = "DRAHSNIP".getBytes(StandardCharsets.US_ASCII);
    public static final long END_MAGIC_LONG = ShardHeaderDescriptor.littleEndianLong(END_MAGIC);

    public static final int RECORD_COUNT_OFFSET = 0;
    public static final int INDEX_OFFSET_OFFSET = RECORD_COUNT_OFFSET + 8;
    public static final int KEY_TABLE_LENGTH_OFFSET = INDEX_OFFSET_OFFSET + 8;
    public static final int METADATA_LENGTH_OFFSET = KEY_TABLE_LENGTH_OFFSET + 4;
    public static final int FILE_LENGTH_OFFSET = METADATA_LENGTH_OFFSET + 4;
    public static final int INDEX_CRC_OFFSET = FILE_LENGTH_OFFSET + 8;
    public static final int KEY_TABLE_CRC_OFFSET = INDEX_CRC_OFFSET + 4;
    public static final int METADATA_CRC_OFFSET = KEY_TABLE_CRC_OFFSET + 4;
    public static final int FOOTER_CRC_OFFSET = METADATA_CRC_OFFSET + 4;
    public static final int RESERVED_OFFSET = FOOTER_CRC_OFFSET + 4;
    public static final int RESERVED_LENGTH = 8;
    public static final int END_MAGIC_OFFSET = RESERVED_OFFSET + RESERVED_LENGTH;
    /** Size of the footer. */
    public static final int LENGTH = END_MAGIC_OFFSET + 8;

    /** Index, key table and footer offsets are multiples of this. */
    public static final int SECTION_ALIGNMENT = 8;

    private ShardFooterDescriptor() {
    }

    /**
     * Checks the footer at {@code offset} on its own: room for it, end magic, checksum, reserved bytes
     * (SPEC.md section 14, step 4). Its offsets are checked against the file by {@link ShardStructure#read}.
     *
     * @throws ShardFormatException naming what is wrong (without file context: callers add it)
     */
    public static void checkFooter(DirectBuffer buffer, int offset, Crc32c crc) {
        if (offset < 0 || (long) buffer.capacity() - offset < LENGTH) {
            throw new ShardFormatException(Kind.TRUNCATED, "file is too short to hold the " + LENGTH + "-byte footer");
        }
        if (buffer.getLong(offset + END_MAGIC_OFFSET, LITTLE_ENDIAN) != END_MAGIC_LONG) {
            throw new ShardFormatException(Kind.TRUNCATED,
                "file does not end with the footer magic \"DRAHSNIP\": truncated, unfinished or not a shard");
        }
        int stored = buffer.getInt(offset + FOOTER_CRC_OFFSET, LITTLE_ENDIAN);
        int actual = crc.compute(buffer, offset, FOOTER_CRC_OFFSET);
        if (stored != actual) {
            throw new ShardFormatException(Kind.CHECKSUM_MISMATCH,
                "footer CRC32C is " + Crc32c.hex(actual) + ", footer says " + Crc32c.hex(stored));
        }
        if (buffer.getLong(offset + RESERVED_OFFSET, LITTLE_ENDIAN) != 0) {
            throw new ShardFormatException(Kind.NONZERO_PADDING, "reserved footer bytes are not zero");
        }
    }
}
