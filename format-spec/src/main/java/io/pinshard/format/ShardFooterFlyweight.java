package io.pinshard.format;

import static io.pinshard.format.ShardFooterDescriptor.*;
import static java.nio.ByteOrder.LITTLE_ENDIAN;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Reusable view of a shard footer. {@link #wrap} only points the view; {@link
 * ShardFooterDescriptor#checkFooter} checks the end magic, the checksum and the reserved bytes, and
 * {@link ShardStructure} then checks the offsets the footer holds against the file.
 */
public final class ShardFooterFlyweight {
    private DirectBuffer buffer;
    private int offset;

    /**
     * Points this view at the footer at {@code offset}. Pure: it checks nothing, so call
     * {@link ShardFooterDescriptor#checkFooter} first on bytes that are not trusted.
     */
    public ShardFooterFlyweight wrap(DirectBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** Record count; a value above {@link Long#MAX_VALUE} reads as negative and fails validation. */
    public long recordCount() {
        return buffer.getLong(offset + RECORD_COUNT_OFFSET, LITTLE_ENDIAN);
    }

    public long indexOffset() {
        return buffer.getLong(offset + INDEX_OFFSET_OFFSET, LITTLE_ENDIAN);
    }

    public long keyTableLength() {
        return buffer.getInt(offset + KEY_TABLE_LENGTH_OFFSET, LITTLE_ENDIAN) & 0xFFFFFFFFL;
    }

    public long metadataLength() {
        return buffer.getInt(offset + METADATA_LENGTH_OFFSET, LITTLE_ENDIAN) & 0xFFFFFFFFL;
    }

    public long fileLength() {
        return buffer.getLong(offset + FILE_LENGTH_OFFSET, LITTLE_ENDIAN);
    }

    public int indexCrc() {
        return buffer.getInt(offset + INDEX_CRC_OFFSET, LITTLE_ENDIAN);
    }

    public int keyTableCrc() {
        return buffer.getInt(offset + KEY_TABLE_CRC_OFFSET, LITTLE_ENDIAN);
    }

    public int metadataCrc() {
        return buffer.getInt(offset + METADATA_CRC_OFFSET, LITTLE_ENDIAN);
    }

    /** Encodes a footer, its checksum included. */
    public static void write(MutableDirectBuffer buffer, int offset, long recordCount, long indexOffset,
                             long keyTableLength, long metadataLength, long fileLength,
                             int indexCrc, int keyTableCrc, int metadataCrc, Crc32c crc) {
        buffer.setMemory(offset, LENGTH, (byte) 0);
        buffer.putLong(offset + RECORD_COUNT_OFFSET, recordCount, LITTLE_ENDIAN);
        buffer.putLong(offset + INDEX_OFFSET_OFFSET, indexOffset, LITTLE_ENDIAN);
        buffer.putInt(offset + KEY_TABLE_LENGTH_OFFSET, (int) keyTableLength, LITTLE_ENDIAN);
        buffer.putInt(offset + METADATA_LENGTH_OFFSET, (int) metadataLength, LITTLE_ENDIAN);
        buffer.putLong(offset + FILE_LENGTH_OFFSET, fileLength, LITTLE_ENDIAN);
        buffer.putInt(offset + INDEX_CRC_OFFSET, indexCrc, LITTLE_ENDIAN);
        buffer.putInt(offset + KEY_TABLE_CRC_OFFSET, keyTableCrc, LITTLE_ENDIAN);
        buffer.putInt(offset + METADATA_CRC_OFFSET, metadataCrc, LITTLE_ENDIAN);
        buffer.putLong(offset + END_MAGIC_OFFSET, END_MAGIC_LONG, LITTLE_ENDIAN);
        buffer.putInt(offset + FOOTER_CRC_OFFSET, crc.compute(buffer, offset, FOOTER_CRC_OFFSET), LITTLE_ENDIAN);
    }
}
