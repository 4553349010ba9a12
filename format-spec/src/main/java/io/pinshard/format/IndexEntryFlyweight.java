package io.pinshard.format;

import static io.pinshard.format.IndexEntryDescriptor.*;
import static java.nio.ByteOrder.LITTLE_ENDIAN;

import io.pinshard.format.ShardFormatException.Kind;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Reusable view of one index entry. Getters read the mapped bytes in place, so walking a million
 * entries creates no objects. Values are only trustworthy after {@link #validate} passed for the
 * entry (the reader does that for every entry when it opens a shard).
 */
public final class IndexEntryFlyweight {
    private DirectBuffer buffer;
    private int offset;

    public IndexEntryFlyweight wrap(DirectBuffer buffer, int offset) {
        if (offset < 0 || (long) offset + LENGTH > buffer.capacity()) {
            throw new ShardFormatException(Kind.OFFSET_OUT_OF_BOUNDS,
                "index entry at " + offset + " lies outside the " + buffer.capacity() + "-byte buffer");
        }
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    public int offset() {
        return offset;
    }

    /** Payload offset from the file's start; a stored value above 2^63 reads as negative. */
    public long payloadOffset() {
        return buffer.getLong(offset + PAYLOAD_OFFSET_OFFSET, LITTLE_ENDIAN);
    }

    public long payloadLength() {
        return buffer.getInt(offset + PAYLOAD_LENGTH_OFFSET, LITTLE_ENDIAN) & 0xFFFFFFFFL;
    }

    public int payloadCrc() {
        return buffer.getInt(offset + PAYLOAD_CRC_OFFSET, LITTLE_ENDIAN);
    }

    public long height() {
        return buffer.getInt(offset + HEIGHT_OFFSET, LITTLE_ENDIAN) & 0xFFFFFFFFL;
    }

    public long width() {
        return buffer.getInt(offset + WIDTH_OFFSET, LITTLE_ENDIAN) & 0xFFFFFFFFL;
    }

    public int label() {
        return buffer.getInt(offset + LABEL_OFFSET, LITTLE_ENDIAN);
    }

    public long keyOffset() {
        return buffer.getInt(offset + KEY_OFFSET_OFFSET, LITTLE_ENDIAN) & 0xFFFFFFFFL;
    }

    public int keyLength() {
        return buffer.getShort(offset + KEY_LENGTH_OFFSET, LITTLE_ENDIAN) & 0xFFFF;
    }

    public int codecId() {
        return buffer.getByte(offset + CODEC_OFFSET) & 0xFF;
    }

    public int channels() {
        return buffer.getByte(offset + CHANNELS_OFFSET) & 0xFF;
    }

    public int reserved() {
        return buffer.getInt(offset + RESERVED_OFFSET, LITTLE_ENDIAN);
    }

    /**
     * Checks this entry's fields on their own and against the shard's regions: payload inside
     * {@code [recordsStart, recordsEnd)}, aligned, after {@code previousEnd} (no overlap), a known
     * codec, a shape within limits and consistent with the payload length, the key inside the key
     * table, reserved bytes zero.
     *
     * @return the payload's end offset, the next entry's {@code previousEnd}
     */
    public long validate(long recordsStart, long recordsEnd, int alignment, long previousEnd, long keyTableLength) {
        long start = payloadOffset();
        long length = payloadLength();
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
        Codec codec = Codec.fromId(codecId());
        if (codec == null) {
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY, "unknown codec id " + codecId());
        }
        long height = height();
        long width = width();
        int channels = channels();
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
        if (codec == Codec.RAW && length != decoded) {
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY, "raw payload holds " + length
                + " bytes but " + height + "x" + width + "x" + channels + " needs " + decoded);
        }
        if (codec == Codec.LZ4 && length > maxLz4BlockLength(decoded)) {
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY, "lz4 payload of " + length
                + " bytes is longer than any LZ4 block of " + decoded + " bytes can be");
        }
        if (codec == Codec.LZ4 && decoded > MAX_LZ4_EXPANSION * length) {
            // A hostile entry claiming a huge shape for a small block would make readers reserve that much.
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY, "lz4 payload of " + length + " bytes cannot decode to "
                + height + "x" + width + "x" + channels + " (" + decoded + " bytes): an LZ4 block expands at most "
                + MAX_LZ4_EXPANSION + " times");
        }
        if (label() < NO_LABEL) {
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY, "label " + label() + " is negative");
        }
        if (keyOffset() + keyLength() > keyTableLength) {
            throw new ShardFormatException(Kind.OFFSET_OUT_OF_BOUNDS, "key [" + keyOffset() + ", +" + keyLength()
                + ") lies outside the " + keyTableLength + "-byte key table");
        }
        if (reserved() != 0) {
            throw new ShardFormatException(Kind.NONZERO_PADDING, "reserved index entry bytes are not zero");
        }
        return start + length;
    }

    /** Most bytes one byte of an LZ4 block can decode to (each match-length extension byte adds 255). */
    public static final long MAX_LZ4_EXPANSION = 255;

    /** Upper bound of an LZ4 block for {@code n} input bytes (LZ4_compressBound). */
    public static long maxLz4BlockLength(long n) {
        return n + n / 255 + 16;
    }

    /** Encodes an entry in place. */
    public static void write(MutableDirectBuffer buffer, int offset, long payloadOffset, int payloadLength,
                             int payloadCrc, int height, int width, int channels, Codec codec, int label,
                             long keyOffset, int keyLength) {
        buffer.putLong(offset + PAYLOAD_OFFSET_OFFSET, payloadOffset, LITTLE_ENDIAN);
        buffer.putInt(offset + PAYLOAD_LENGTH_OFFSET, payloadLength, LITTLE_ENDIAN);
        buffer.putInt(offset + PAYLOAD_CRC_OFFSET, payloadCrc, LITTLE_ENDIAN);
        buffer.putInt(offset + HEIGHT_OFFSET, height, LITTLE_ENDIAN);
        buffer.putInt(offset + WIDTH_OFFSET, width, LITTLE_ENDIAN);
        buffer.putInt(offset + LABEL_OFFSET, label, LITTLE_ENDIAN);
        buffer.putInt(offset + KEY_OFFSET_OFFSET, (int) keyOffset, LITTLE_ENDIAN);
        buffer.putShort(offset + KEY_LENGTH_OFFSET, (short) keyLength, LITTLE_ENDIAN);
        buffer.putByte(offset + CODEC_OFFSET, (byte) codec.id());
        buffer.putByte(offset + CHANNELS_OFFSET, (byte) channels);
        buffer.putInt(offset + RESERVED_OFFSET, 0, LITTLE_ENDIAN);
    }
}
