package io.pinshard.format;

import static io.pinshard.format.IndexEntryDescriptor.*;
import static java.nio.ByteOrder.LITTLE_ENDIAN;

import org.agrona.MutableDirectBuffer;

/**
 * Fluent encoder of one index entry, the write side of {@link IndexEntryFlyweight}:
 *
 * <pre>{@code
 * encoder.wrap(index, offset).clear()
 *     .payload(payloadOffset, payloadLength, payloadCrc)
 *     .shape(height, width, channels).codec(codec).label(label)
 *     .key(keyOffset, keyLength);
 * }</pre>
 *
 * Setters store what they are given; {@link IndexEntryDescriptor#checkEntry} on the written bytes
 * tells whether the entry is valid. Reusable, allocation-free.
 */
public final class IndexEntryEncoder {
    private MutableDirectBuffer buffer;
    private int offset;

    /** Points the encoder at the entry at {@code offset}; writes nothing. */
    public IndexEntryEncoder wrap(MutableDirectBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** Zeroes all {@value IndexEntryDescriptor#LENGTH} bytes, the reserved field included. */
    public IndexEntryEncoder clear() {
        buffer.setMemory(offset, LENGTH, (byte) 0);
        return this;
    }

    /** Where the payload lies in the file, its length and its CRC32C. */
    public IndexEntryEncoder payload(long payloadOffset, int payloadLength, int payloadCrc) {
        buffer.putLong(offset + PAYLOAD_OFFSET_OFFSET, payloadOffset, LITTLE_ENDIAN);
        buffer.putInt(offset + PAYLOAD_LENGTH_OFFSET, payloadLength, LITTLE_ENDIAN);
        buffer.putInt(offset + PAYLOAD_CRC_OFFSET, payloadCrc, LITTLE_ENDIAN);
        return this;
    }

    /** The decoded image's height x width x channels. */
    public IndexEntryEncoder shape(int height, int width, int channels) {
        buffer.putInt(offset + HEIGHT_OFFSET, height, LITTLE_ENDIAN);
        buffer.putInt(offset + WIDTH_OFFSET, width, LITTLE_ENDIAN);
        buffer.putByte(offset + CHANNELS_OFFSET, (byte) channels);
        return this;
    }

    public IndexEntryEncoder codec(Codec codec) {
        buffer.putByte(offset + CODEC_OFFSET, (byte) codec.id());
        return this;
    }

    /** Class index, or {@link IndexEntryDescriptor#NO_LABEL}. */
    public IndexEntryEncoder label(int label) {
        buffer.putInt(offset + LABEL_OFFSET, label, LITTLE_ENDIAN);
        return this;
    }

    /** The key's place in the key table. */
    public IndexEntryEncoder key(long keyOffset, int keyLength) {
        buffer.putInt(offset + KEY_OFFSET_OFFSET, (int) keyOffset, LITTLE_ENDIAN);
        buffer.putShort(offset + KEY_LENGTH_OFFSET, (short) keyLength, LITTLE_ENDIAN);
        return this;
    }
}
