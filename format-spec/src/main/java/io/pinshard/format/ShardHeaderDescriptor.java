package io.pinshard.format;

import java.nio.charset.StandardCharsets;

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

    public static final int MIN_ALIGNMENT = 64;
    public static final int MAX_ALIGNMENT = 1 << 20;
    public static final int DEFAULT_ALIGNMENT = 64;

    private ShardHeaderDescriptor() {
    }

    static long littleEndianLong(byte[] bytes) {
        long value = 0;
        for (int i = 7; i >= 0; i--) {
            value = (value << 8) | (bytes[i] & 0xFF);
        }
        return value;
    }
}
