package io.pinshard.format;

import io.pinshard.format.ShardFormatException.Kind;

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

    /**
     * Largest ratio of decoded bytes to LZ4 block bytes: a sequence's match length grows by at most
     * 255 per input byte, literals copy one to one, so no block of {@code n} bytes decodes to more
     * than {@code 255 * n}.
     */
    public static final int MAX_LZ4_RATIO = 255;

    private IndexEntryDescriptor() {
    }

    /**
     * Checks one entry on its own and against its shard's regions (SPEC.md section 14, step 10): payload
     * inside {@code [recordsStart, recordsEnd)}, aligned, not before {@code previousEnd} (no overlap), a
     * known codec, a shape within limits and consistent with the payload length, a label {@code >= -1},
     * the key inside the key table, reserved bytes zero.
     *
     * @return the payload's end offset, the next entry's {@code previousEnd}
     * @throws ShardFormatException naming what is wrong (callers add file and record)
     */
    public static long checkEntry(IndexEntryFlyweight entry, long recordsStart, long recordsEnd, int alignment,
                                  long previousEnd, long keyTableLength) {
        long start = entry.payloadOffset();
        long length = entry.payloadLength();
        if (start < recordsStart || start >= recordsEnd || length > recordsEnd - start) {
            throw new ShardFormatException(Kind.OFFSET_OUT_OF_BOUNDS, "payload [" + Long.toUnsignedString(start) + ", +"
                + length + ") lies outside the records region [" + recordsStart + ", " + recordsEnd + ")");
        }
        if ((start & (alignment - 1)) != 0) {
            throw new ShardFormatException(Kind.MISALIGNED,
                "payload offset " + start + " is not a multiple of the shard's alignment " + alignment);
        }
        if (start < previousEnd) {
            throw new ShardFormatException(Kind.OVERLAPPING_RECORDS, "payload starts at " + start
                + ", before the previous record's payload ends at " + previousEnd);
        }
        checkShape(entry);
        if (entry.label() < NO_LABEL) {
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY, "label " + entry.label() + " is negative");
        }
        if (entry.keyOffset() + entry.keyLength() > keyTableLength) {
            throw new ShardFormatException(Kind.OFFSET_OUT_OF_BOUNDS, "key [" + entry.keyOffset() + ", +"
                + entry.keyLength() + ") lies outside the " + keyTableLength + "-byte key table");
        }
        if (entry.reserved() != 0) {
            throw new ShardFormatException(Kind.NONZERO_PADDING, "reserved index entry bytes are not zero");
        }
        return start + length;
    }

    /**
     * Checks codec, shape and payload length against each other (steps 10d to 10j): what a decoder needs
     * to trust before it sizes a destination from the entry.
     */
    public static void checkShape(IndexEntryFlyweight entry) {
        Codec codec = Codec.fromId(entry.codecId());
        if (codec == null) {
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY, "unknown codec id " + entry.codecId());
        }
        long height = entry.height();
        long width = entry.width();
        int channels = entry.channels();
        long length = entry.payloadLength();
        if (height < 1 || height > MAX_SIDE || width < 1 || width > MAX_SIDE) {
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY,
                "image size " + height + "x" + width + " is outside 1.." + MAX_SIDE);
        }
        if (channels != 1 && channels != 3 && channels != 4) {
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY, "channel count " + channels + " is not 1, 3 or 4");
        }
        if (codec == Codec.JPEG && channels == 4) {
            // JPEG has no alpha channel: such an entry could never be decoded as its shape says.
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY, "jpeg records hold 1 or 3 channels, not 4");
        }
        long decoded = ShardLayout.decodedBytes(height, width, channels);
        if (decoded > MAX_DECODED_BYTES) {
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY, "decoded size " + decoded + " bytes is too large");
        }
        if (length == 0) {
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY, "payload is empty");
        }
        if (codec == Codec.YUV420) {
            Yuv420Descriptor.checkEntry(height, width, channels, length);
        }
        if (codec == Codec.RAW && length != decoded) {
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY, "raw payload holds " + length
                + " bytes but " + height + "x" + width + "x" + channels + " needs " + decoded);
        }
        if (codec == Codec.LZ4 && length > maxLz4BlockLength(decoded)) {
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY, "lz4 payload of " + length
                + " bytes is longer than any LZ4 block of " + decoded + " bytes can be");
        }
        if (codec == Codec.LZ4 && decoded > MAX_LZ4_RATIO * length) {
            // An entry claiming a huge image over a tiny block would make a decoder reserve memory for nothing.
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY, "lz4 payload of " + length + " bytes cannot decode to "
                + height + "x" + width + "x" + channels + " = " + decoded + " bytes (at most " + MAX_LZ4_RATIO + " per byte)");
        }
    }

    /**
     * Checks a label against the dataset's class list: with {@code classCount > 0} classes a label must
     * be {@link #NO_LABEL} or in {@code 0..classCount-1}; with no class list any label {@code >= -1} is
     * allowed.
     */
    public static void checkLabel(int label, int classCount) {
        if (label < NO_LABEL || classCount > 0 && label >= classCount) {
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY, "label " + label
                + " has no class name (the manifest lists " + classCount + " classes)");
        }
    }

    /** Upper bound of an LZ4 block for {@code n} input bytes (LZ4_compressBound). */
    public static long maxLz4BlockLength(long n) {
        return n + n / 255 + 16;
    }
}
