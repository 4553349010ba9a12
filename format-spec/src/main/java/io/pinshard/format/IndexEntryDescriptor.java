package io.pinshard.format;

/**
 * Layout of one 40-byte index entry; entry {@code i} lives at {@code indexOffset + i * LENGTH}.
 * All integers little-endian.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+ 0
 *  |              Payload offset from file start (u64)             |
 *  |                                                               |
 *  +---------------------------------------------------------------+ 8
 *  |                   Payload length in bytes (u32)               |
 *  +---------------------------------------------------------------+ 12
 *  |                   CRC32C of the payload (u32)                 |
 *  +---------------------------------------------------------------+ 16
 *  |                       Height in pixels (u32)                  |
 *  +---------------------------------------------------------------+ 20
 *  |                       Width in pixels (u32)                   |
 *  +---------------------------------------------------------------+ 24
 *  |                  Label (i32, -1 = unlabelled)                 |
 *  +---------------------------------------------------------------+ 28
 *  |            Key offset, relative to the key table (u32)        |
 *  +-------------------------------+---------------+---------------+ 32
 *  |        Key length (u16)       |  Codec (u8)   | Channels (u8) |
 *  +-------------------------------+---------------+---------------+ 36
 *  |                     Reserved (u32, must be 0)                 |
 *  +---------------------------------------------------------------+ 40
 * </pre>
 */
public final class IndexEntryDescriptor {
    public static final int PAYLOAD_OFFSET_OFFSET = 0;
    public static final int PAYLOAD_LENGTH_OFFSET = PAYLOAD_OFFSET_OFFSET + 8;
    public static final int PAYLOAD_CRC_OFFSET = PAYLOAD_LENGTH_OFFSET + 4;
    public static final int HEIGHT_OFFSET = PAYLOAD_CRC_OFFSET + 4;
    public static final int WIDTH_OFFSET = HEIGHT_OFFSET + 4;
    public static final int LABEL_OFFSET = WIDTH_OFFSET + 4;
    public static final int KEY_OFFSET_OFFSET = LABEL_OFFSET + 4;
    public static final int KEY_LENGTH_OFFSET = KEY_OFFSET_OFFSET + 4;
    public static final int CODEC_OFFSET = KEY_LENGTH_OFFSET + 2;
    public static final int CHANNELS_OFFSET = CODEC_OFFSET + 1;
    public static final int RESERVED_OFFSET = CHANNELS_OFFSET + 1;
    /** Size of one index entry. */
    public static final int LENGTH = RESERVED_OFFSET + 4;

    /** Label value for a record without a class. */
    public static final int NO_LABEL = -1;
    /** Largest key in bytes (UTF-8). */
    public static final int MAX_KEY_LENGTH = 0xFFFF;
    /** Largest side of an image; pre-resized images are far smaller. */
    public static final int MAX_SIDE = 65_535;
    /** Largest decoded image, height * width * channels, so it fits one Java array or buffer. */
    public static final long MAX_DECODED_BYTES = Integer.MAX_VALUE - 64;

    private IndexEntryDescriptor() {
    }
}
