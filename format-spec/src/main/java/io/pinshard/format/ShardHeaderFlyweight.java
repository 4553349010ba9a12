package io.pinshard.format;

import static io.pinshard.format.ShardHeaderDescriptor.*;
import static java.nio.ByteOrder.LITTLE_ENDIAN;

import io.pinshard.format.ShardFormatException.Kind;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Reusable view of a shard header. {@link #wrap} checks length, magic, version, checksum and every
 * must-be-zero field before any getter can be trusted; {@link #write} encodes a header.
 */
public final class ShardHeaderFlyweight {
    private DirectBuffer buffer;
    private int offset;

    /**
     * Wraps and validates the header at {@code offset}.
     *
     * @throws ShardFormatException naming what is wrong (without file context: callers add it)
     */
    public ShardHeaderFlyweight wrap(DirectBuffer buffer, int offset, Crc32c crc) {
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

    /** Encodes a version {@value ShardHeaderDescriptor#MAJOR_VERSION} header, checksum included. */
    public static void write(MutableDirectBuffer buffer, int offset, int alignment, int shardNumber, Crc32c crc) {
        if (!ShardLayout.isValidAlignment(alignment)) {
            throw new IllegalArgumentException("alignment must be a power of two in ["
                + MIN_ALIGNMENT + ", " + MAX_ALIGNMENT + "]: " + alignment);
        }
        buffer.setMemory(offset, LENGTH, (byte) 0);
        buffer.putLong(offset + MAGIC_OFFSET, MAGIC_LONG, LITTLE_ENDIAN);
        buffer.putShort(offset + MAJOR_VERSION_OFFSET, (short) MAJOR_VERSION, LITTLE_ENDIAN);
        buffer.putShort(offset + MINOR_VERSION_OFFSET, (short) MINOR_VERSION, LITTLE_ENDIAN);
        buffer.putInt(offset + HEADER_LENGTH_OFFSET, LENGTH, LITTLE_ENDIAN);
        buffer.putInt(offset + ALIGNMENT_OFFSET, alignment, LITTLE_ENDIAN);
        buffer.putInt(offset + SHARD_NUMBER_OFFSET, shardNumber, LITTLE_ENDIAN);
        buffer.putInt(offset + CRC_OFFSET, crc.compute(buffer, offset, CRC_OFFSET), LITTLE_ENDIAN);
    }
}
