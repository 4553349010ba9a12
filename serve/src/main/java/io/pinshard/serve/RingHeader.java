package io.pinshard.serve;

import static io.pinshard.serve.RingDescriptor.*;

import io.pinshard.loader.options.PixelFormat;
import io.pinshard.memory.DType;
import org.agrona.concurrent.AtomicBuffer;

/**
 * Flyweight over a ring file's header ({@link RingDescriptor}, bytes 0..{@value RingDescriptor#HEADER_END}). The
 * server writes it once, before it renames the file into place, and never again; every other party only reads it,
 * after {@link RingDescriptor#checkHeader} passed for the same bytes. Plain loads and stores: the rename (and, for
 * a reader, the open and map that follow it) orders them.
 *
 * <p>{@link #wrap} only points the view: {@code offset} is where the ring file starts in {@code buffer} (0 for a
 * mapped ring), and each field sits at {@code offset +} its offset in the file.
 */
public final class RingHeader {
    private AtomicBuffer buffer;
    private int offset;

    /** Points this view at the ring file starting at {@code offset}. Pure: checks nothing. */
    public RingHeader wrap(AtomicBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    public AtomicBuffer buffer() {
        return buffer;
    }

    /** Whether the file starts with {@link RingDescriptor#MAGIC}. */
    public boolean hasMagic() {
        if (buffer.capacity() - offset < MAGIC.length) {
            return false;
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (buffer.getByte(offset + MAGIC_OFFSET + i) != MAGIC[i]) {
                return false;
            }
        }
        return true;
    }

    /** Writes the magic and {@link RingDescriptor#VERSION}. */
    public RingHeader magicAndVersion() {
        buffer.putBytes(offset + MAGIC_OFFSET, MAGIC);
        return version(VERSION);
    }

    public int version() {
        return buffer.getInt(offset + VERSION_OFFSET);
    }

    public RingHeader version(int version) {
        buffer.putInt(offset + VERSION_OFFSET, version);
        return this;
    }

    /** Bytes before the first slot: header, blocks and slot headers, padded to a page (= {@link #slotsOffset()}). */
    public int headerLength() {
        return buffer.getInt(offset + HEADER_LENGTH_OFFSET);
    }

    public RingHeader headerLength(int length) {
        buffer.putInt(offset + HEADER_LENGTH_OFFSET, length);
        return this;
    }

    public long fileLength() {
        return buffer.getLong(offset + FILE_LENGTH_OFFSET);
    }

    public RingHeader fileLength(long length) {
        buffer.putLong(offset + FILE_LENGTH_OFFSET, length);
        return this;
    }

    public int slotCount() {
        return buffer.getInt(offset + SLOT_COUNT_OFFSET);
    }

    public RingHeader slotCount(int slots) {
        buffer.putInt(offset + SLOT_COUNT_OFFSET, slots);
        return this;
    }

    /** Samples a slot holds at most (the batch size). */
    public int capacity() {
        return buffer.getInt(offset + CAPACITY_OFFSET);
    }

    public RingHeader capacity(int capacity) {
        buffer.putInt(offset + CAPACITY_OFFSET, capacity);
        return this;
    }

    public int height() {
        return buffer.getInt(offset + HEIGHT_OFFSET);
    }

    public RingHeader height(int height) {
        buffer.putInt(offset + HEIGHT_OFFSET, height);
        return this;
    }

    public int width() {
        return buffer.getInt(offset + WIDTH_OFFSET);
    }

    public RingHeader width(int width) {
        buffer.putInt(offset + WIDTH_OFFSET, width);
        return this;
    }

    public int channels() {
        return buffer.getInt(offset + CHANNELS_OFFSET);
    }

    public RingHeader channels(int channels) {
        buffer.putInt(offset + CHANNELS_OFFSET, channels);
        return this;
    }

    /**
     * Bytes of one image: height x width x channels values of DTYPE_BITS, in 64 bits (the fields are not trusted to be
     * small; a pixel format {@link #pixels()} does not know counts 0 bytes per value).
     */
    public long imageBytes() {
        PixelFormat pixels = pixels();
        return (long) height() * width() * channels() * (pixels == null ? 0 : pixels.elementBytes());
    }

    public int flags() {
        return buffer.getInt(offset + FLAGS_OFFSET);
    }

    public RingHeader flags(int flags) {
        buffer.putInt(offset + FLAGS_OFFSET, flags);
        return this;
    }

    /** File offset of slot 0's data. */
    public long slotsOffset() {
        return buffer.getLong(offset + SLOTS_OFFSET_OFFSET);
    }

    public RingHeader slotsOffset(long slotsOffset) {
        buffer.putLong(offset + SLOTS_OFFSET_OFFSET, slotsOffset);
        return this;
    }

    public long slotStride() {
        return buffer.getLong(offset + SLOT_STRIDE_OFFSET);
    }

    public RingHeader slotStride(long stride) {
        buffer.putLong(offset + SLOT_STRIDE_OFFSET, stride);
        return this;
    }

    /** File offset of slot {@code slot}'s data, by this header's geometry. */
    public long slotOffset(int slot) {
        return RingDescriptor.slotOffset(slotsOffset(), slotStride(), slot);
    }

    public long batchesPerEpoch() {
        return buffer.getLong(offset + BATCHES_PER_EPOCH_OFFSET);
    }

    public RingHeader batchesPerEpoch(long batches) {
        buffer.putLong(offset + BATCHES_PER_EPOCH_OFFSET, batches);
        return this;
    }

    public long samplesPerEpoch() {
        return buffer.getLong(offset + SAMPLES_PER_EPOCH_OFFSET);
    }

    public RingHeader samplesPerEpoch(long samples) {
        buffer.putLong(offset + SAMPLES_PER_EPOCH_OFFSET, samples);
        return this;
    }

    public long records() {
        return buffer.getLong(offset + RECORDS_OFFSET);
    }

    public RingHeader records(long records) {
        buffer.putLong(offset + RECORDS_OFFSET, records);
        return this;
    }

    public long seed() {
        return buffer.getLong(offset + SEED_OFFSET);
    }

    public RingHeader seed(long seed) {
        buffer.putLong(offset + SEED_OFFSET, seed);
        return this;
    }

    public int rank() {
        return buffer.getInt(offset + RANK_OFFSET);
    }

    public RingHeader rank(int rank) {
        buffer.putInt(offset + RANK_OFFSET, rank);
        return this;
    }

    public int worldSize() {
        return buffer.getInt(offset + WORLD_SIZE_OFFSET);
    }

    public RingHeader worldSize(int worldSize) {
        buffer.putInt(offset + WORLD_SIZE_OFFSET, worldSize);
        return this;
    }

    public long serverPid() {
        return buffer.getLong(offset + SERVER_PID_OFFSET);
    }

    public RingHeader serverPid(long pid) {
        buffer.putLong(offset + SERVER_PID_OFFSET, pid);
        return this;
    }

    public long serverStartMillis() {
        return buffer.getLong(offset + SERVER_START_MILLIS_OFFSET);
    }

    public RingHeader serverStartMillis(long millis) {
        buffer.putLong(offset + SERVER_START_MILLIS_OFFSET, millis);
        return this;
    }

    /** Classes in the dataset's manifest: a label is -1 (none) or below this; 0 = no class list. */
    public int classCount() {
        return buffer.getInt(offset + CLASS_COUNT_OFFSET);
    }

    public RingHeader classCount(int classes) {
        buffer.putInt(offset + CLASS_COUNT_OFFSET, classes);
        return this;
    }

    public int fieldCount() {
        return buffer.getInt(offset + FIELD_COUNT_OFFSET);
    }

    public RingHeader fieldCount(int fields) {
        buffer.putInt(offset + FIELD_COUNT_OFFSET, fields);
        return this;
    }

    /** Bytes of the fields block's description (its FIELDS_JSON_LENGTH); the block sits after the slot headers. */
    public int fieldsJsonLength() {
        return buffer.getInt(offset + RingDescriptor.fieldsBlockOffset(slotCount()) + FIELDS_JSON_LENGTH_OFFSET);
    }

    /** The fields block's description (checked by {@link RingDescriptor#checkHeader} before this is trusted). */
    public String fieldsJson() {
        return buffer.getStringWithoutLengthUtf8(offset + RingDescriptor.fieldsBlockOffset(slotCount())
            + FIELDS_JSON_OFFSET, fieldsJsonLength());
    }

    /** Writes the fields block: FIELD_COUNT, the description's length and its UTF-8 bytes (SLOT_COUNT set first). */
    public RingHeader fields(int count, String json) {
        byte[] utf8 = json.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (count < 0 || count > MAX_FIELDS || utf8.length > FIELDS_JSON_MAX_BYTES || (count == 0) != (utf8.length == 0)) {
            throw new IllegalArgumentException("a ring describes 0.." + MAX_FIELDS + " fields in at most "
                + FIELDS_JSON_MAX_BYTES + " bytes: " + count + " fields in " + utf8.length);
        }
        int block = offset + RingDescriptor.fieldsBlockOffset(slotCount());
        fieldCount(count);
        buffer.putInt(block + FIELDS_JSON_LENGTH_OFFSET, utf8.length);
        buffer.putBytes(block + FIELDS_JSON_OFFSET, utf8);
        return this;
    }

    public int dtypeCode() {
        return buffer.getInt(offset + DTYPE_CODE_OFFSET);
    }

    public int dtypeBits() {
        return buffer.getInt(offset + DTYPE_BITS_OFFSET);
    }

    public int layout() {
        return buffer.getInt(offset + LAYOUT_OFFSET);
    }

    public double mean(int channel) {
        return buffer.getDouble(offset + MEAN_OFFSET + channel * Double.BYTES);
    }

    public double std(int channel) {
        return buffer.getDouble(offset + STD_OFFSET + channel * Double.BYTES);
    }

    /** The pixels block as a format, or null when it holds none a server writes (an unknown type, a bad std). */
    public PixelFormat pixels() {
        DType type = null;
        for (DType candidate : DType.values()) {
            if (candidate.dlpackCode() == dtypeCode() && candidate.bits() == dtypeBits()) {
                type = candidate;
            }
        }
        int layout = layout();
        if (type == null || layout != LAYOUT_NHWC && layout != LAYOUT_NCHW) {
            return null;
        }
        double[] mean = {mean(0), mean(1), mean(2)};
        double[] std = {std(0), std(1), std(2)};
        boolean plain = mean[0] == 0 && mean[1] == 0 && mean[2] == 0 && std[0] == 1 && std[1] == 1 && std[2] == 1;
        try {
            return PixelFormat.of(type, layout == LAYOUT_NHWC ? PixelFormat.Layout.NHWC : PixelFormat.Layout.NCHW,
                plain ? null : mean, plain ? null : std);
        } catch (IllegalArgumentException notAFormat) {
            return null;
        }
    }

    /** Writes the pixels block. */
    public RingHeader pixels(PixelFormat pixels) {
        buffer.putInt(offset + DTYPE_CODE_OFFSET, pixels.dtype().dlpackCode());
        buffer.putInt(offset + DTYPE_BITS_OFFSET, pixels.dtype().bits());
        buffer.putInt(offset + LAYOUT_OFFSET, pixels.layout() == PixelFormat.Layout.NHWC ? LAYOUT_NHWC : LAYOUT_NCHW);
        for (int c = 0; c < 3; c++) {
            buffer.putDouble(offset + MEAN_OFFSET + c * Double.BYTES, pixels.mean(c));
            buffer.putDouble(offset + STD_OFFSET + c * Double.BYTES, pixels.std(c));
        }
        return this;
    }
}
