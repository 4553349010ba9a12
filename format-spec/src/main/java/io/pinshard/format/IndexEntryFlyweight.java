package io.pinshard.format;

import static io.pinshard.format.IndexEntryDescriptor.*;
import static java.nio.ByteOrder.LITTLE_ENDIAN;

import org.agrona.DirectBuffer;

/**
 * Decoder of one index entry: a reusable read-only view whose getters read the mapped bytes in
 * place, so walking a million entries creates no objects. Values are only trustworthy after {@link
 * IndexEntryDescriptor#checkEntry} passed for the entry (the reader does that for every entry when it
 * opens a shard). {@link IndexEntryEncoder} writes entries.
 */
public final class IndexEntryFlyweight {
    private DirectBuffer buffer;
    private int offset;

    /**
     * Points this view at the entry at {@code offset}. Pure: it checks nothing, so run
     * {@link IndexEntryDescriptor#checkEntry} on an entry whose bytes are not trusted.
     */
    public IndexEntryFlyweight wrap(DirectBuffer buffer, int offset) {
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
}
