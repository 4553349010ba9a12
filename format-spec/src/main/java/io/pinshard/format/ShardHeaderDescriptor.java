package io.pinshard.format;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

import io.pinshard.format.ShardFormatException.Kind;
import java.nio.charset.StandardCharsets;
import org.agrona.DirectBuffer;

/**
 * Layout of the 64-byte header at offset 0 of every shard file. All integers little-endian.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+ 0
 *  |                  Magic "PINSHARD" (8 bytes)                   |
 *  |                                                               |
 *  +-------------------------------+-------------------------------+ 8
 *  |        Major version (u16)    |      Minor version (u16)      |
 *  +-------------------------------+-------------------------------+ 12
 *  |                     Header length (u32) = 64                  |
 *  +---------------------------------------------------------------+ 16
 *  |                 Payload alignment (u32, 2^k >= 64)            |
 *  +---------------------------------------------------------------+ 20
 *  |                      Flags (u32, must be 0)                   |
 *  +---------------------------------------------------------------+ 24
 *  |                     Shard number (u32)                        |
 *  +---------------------------------------------------------------+ 28
 *  |                 Reserved (32 bytes, must be 0)                ...
 *  +---------------------------------------------------------------+ 60
 *  |              CRC32C of bytes 0..59 (u32)                      |
 *  +---------------------------------------------------------------+ 64
 * </pre>
 */
public final class ShardHeaderDescriptor {
    /** The eight ASCII bytes every shard starts with. */
    public static final byte[] MAGIC = "PINSHARD".getBytes(StandardCharsets.US_ASCII);
    /** The magic read as one little-endian long, for a single comparison. */
    public static final long MAGIC_LONG = littleEndianLong(MAGIC);

    public static final int MAGIC_OFFSET = 0;
    public static final int MAJOR_VERSION_OFFSET = MAGIC_OFFSET + 8;
    public static final int MINOR_VERSION_OFFSET = MAJOR_VERSION_OFFSET + 2;
    public static final int HEADER_LENGTH_OFFSET = MINOR_VERSION_OFFSET + 2;
    public static final int ALIGNMENT_OFFSET = HEADER_LENGTH_OFFSET + 4;
    public static final int FLAGS_OFFSET = ALIGNMENT_OFFSET + 4;
    public static final int SHARD_NUMBER_OFFSET = FLAGS_OFFSET + 4;
    public static final int RESERVED_OFFSET = SHARD_NUMBER_OFFSET + 4;
    public static final int RESERVED_LENGTH = 32;
    public static final int CRC_OFFSET = RESERVED_OFFSET + RESERVED_LENGTH;
    /** Length of the header; also the value of its header-length field in version 1. */
    public static final int LENGTH = CRC_OFFSET + 4;

    /** Major version: a reader refuses any major version it was not written for. */
    public static final int MAJOR_VERSION = 1;
    /** Minor version written by this code; readers accept any minor of their major. */
    public static final int MINOR_VERSION = 0;
    /** Minor version of a shard with a fields section (SPEC.md section 17); 1.0 readers ignore the section by rule. */
    public static final int FIELDS_MINOR_VERSION = 1;

    public static final int MIN_ALIGNMENT = 64;
    public static final int MAX_ALIGNMENT = 1 << 20;
    public static final int DEFAULT_ALIGNMENT = 64;

    private ShardHeaderDescriptor() {
    }

    /**
     * Checks the header at {@code offset}: length, magic, major version (before the checksum, so an
     * unknown version is reported as such), checksum, header length, alignment, flags and reserved bytes
     * (SPEC.md section 14, step 3).
     *
     * @throws ShardFormatException naming what is wrong (without file context: callers add it)
     */
    public static void checkHeader(DirectBuffer buffer, int offset, Crc32c crc) {
        if ((long) buffer.capacity() - offset < LENGTH) {
            throw new ShardFormatException(Kind.TRUNCATED,
                "file holds " + (buffer.capacity() - offset) + " bytes, shorter than the " + LENGTH + "-byte header");
        }
        if (buffer.getLong(offset + MAGIC_OFFSET, LITTLE_ENDIAN) != MAGIC_LONG) {
            throw new ShardFormatException(Kind.BAD_MAGIC, "header magic is not \"PINSHARD\": not a pinshard shard");
        }
        int major = buffer.getShort(offset + MAJOR_VERSION_OFFSET, LITTLE_ENDIAN) & 0xFFFF;
        if (major != MAJOR_VERSION) {
            int minor = buffer.getShort(offset + MINOR_VERSION_OFFSET, LITTLE_ENDIAN) & 0xFFFF;
            throw new ShardFormatException(Kind.UNSUPPORTED_VERSION,
                "format version " + major + "." + minor + " is not supported (this reader reads " + MAJOR_VERSION + ".x)");
        }
        int stored = buffer.getInt(offset + CRC_OFFSET, LITTLE_ENDIAN);
        int actual = crc.compute(buffer, offset, CRC_OFFSET);
        if (stored != actual) {
            throw new ShardFormatException(Kind.CHECKSUM_MISMATCH,
                "header CRC32C is " + Crc32c.hex(actual) + ", header says " + Crc32c.hex(stored));
        }
        long headerLength = buffer.getInt(offset + HEADER_LENGTH_OFFSET, LITTLE_ENDIAN) & 0xFFFFFFFFL;
        if (headerLength != LENGTH) {
            throw new ShardFormatException(Kind.BAD_HEADER, "header length is " + headerLength + ", expected " + LENGTH);
        }
        long alignment = buffer.getInt(offset + ALIGNMENT_OFFSET, LITTLE_ENDIAN) & 0xFFFFFFFFL;
        if (!ShardLayout.isValidAlignment(alignment)) {
            throw new ShardFormatException(Kind.BAD_HEADER, "payload alignment " + alignment
                + " is not a power of two between " + MIN_ALIGNMENT + " and " + MAX_ALIGNMENT);
        }
        if (buffer.getInt(offset + FLAGS_OFFSET, LITTLE_ENDIAN) != 0) {
            throw new ShardFormatException(Kind.BAD_HEADER, "header flags are not zero");
        }
        for (int i = 0; i < RESERVED_LENGTH; i += 8) {
            if (buffer.getLong(offset + RESERVED_OFFSET + i, LITTLE_ENDIAN) != 0) {
                throw new ShardFormatException(Kind.NONZERO_PADDING, "reserved header bytes are not zero");
            }
        }
    }

    static long littleEndianLong(byte[] bytes) {
        long value = 0;
        for (int i = 7; i >= 0; i--) {
            value = (value << 8) | (bytes[i] & 0xFF);
        }
        return value;
    }
}
