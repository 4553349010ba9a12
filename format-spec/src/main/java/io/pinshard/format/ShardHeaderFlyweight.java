package io.pinshard.format;

import static io.pinshard.format.ShardHeaderDescriptor.*;
import static java.nio.ByteOrder.LITTLE_ENDIAN;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Reusable view of a shard header. {@link #wrap} only points the view; its values are trustworthy
 * after {@link ShardHeaderDescriptor#checkHeader} passed for the same bytes. {@link #write} encodes a
 * header.
 */
public final class ShardHeaderFlyweight {
    private DirectBuffer buffer;
    private int offset;

    /**
     * Points this view at the header at {@code offset}. Pure: it checks nothing, so call
     * {@link ShardHeaderDescriptor#checkHeader} first on bytes that are not trusted.
     */
    public ShardHeaderFlyweight wrap(DirectBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    public int majorVersion() {
        return buffer.getShort(offset + MAJOR_VERSION_OFFSET, LITTLE_ENDIAN) & 0xFFFF;
    }

    public int minorVersion() {
        return buffer.getShort(offset + MINOR_VERSION_OFFSET, LITTLE_ENDIAN) & 0xFFFF;
    }

    public int alignment() {
        return buffer.getInt(offset + ALIGNMENT_OFFSET, LITTLE_ENDIAN);
    }

    public int shardNumber() {
        return buffer.getInt(offset + SHARD_NUMBER_OFFSET, LITTLE_ENDIAN);
    }

    /** Encodes a version 1.0 header, checksum included. */
    public static void write(MutableDirectBuffer buffer, int offset, int alignment, int shardNumber, Crc32c crc) {
        write(buffer, offset, alignment, shardNumber, MINOR_VERSION, crc);
    }

    /** Encodes a version {@value ShardHeaderDescriptor#MAJOR_VERSION}.{@code minorVersion} header, checksum included. */
    public static void write(MutableDirectBuffer buffer, int offset, int alignment, int shardNumber, int minorVersion,
                             Crc32c crc) {
        if (!ShardLayout.isValidAlignment(alignment)) {
            throw new IllegalArgumentException("alignment must be a power of two in ["
                + MIN_ALIGNMENT + ", " + MAX_ALIGNMENT + "]: " + alignment);
        }
        buffer.setMemory(offset, LENGTH, (byte) 0);
        buffer.putLong(offset + MAGIC_OFFSET, MAGIC_LONG, LITTLE_ENDIAN);
        buffer.putShort(offset + MAJOR_VERSION_OFFSET, (short) MAJOR_VERSION, LITTLE_ENDIAN);
        buffer.putShort(offset + MINOR_VERSION_OFFSET, (short) minorVersion, LITTLE_ENDIAN);
        buffer.putInt(offset + HEADER_LENGTH_OFFSET, LENGTH, LITTLE_ENDIAN);
        buffer.putInt(offset + ALIGNMENT_OFFSET, alignment, LITTLE_ENDIAN);
        buffer.putInt(offset + SHARD_NUMBER_OFFSET, shardNumber, LITTLE_ENDIAN);
        buffer.putInt(offset + CRC_OFFSET, crc.compute(buffer, offset, CRC_OFFSET), LITTLE_ENDIAN);
    }
}
