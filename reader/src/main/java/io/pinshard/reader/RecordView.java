package io.pinshard.reader;

import io.pinshard.format.Codec;
import io.pinshard.format.Crc32c;
import io.pinshard.format.IndexEntryFlyweight;
import io.pinshard.format.ShardLayout;
import java.nio.charset.StandardCharsets;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Reusable flyweight over one record of a mapped shard: shape, label, codec, key and the payload's
 * place in the mapping, all read in place. Re-point it with {@link Dataset#record(long, RecordView)};
 * one instance per thread serves any number of records without allocating.
 */
public final class RecordView {
    private final IndexEntryFlyweight entry = new IndexEntryFlyweight();
    private MappedShard shard;
    private long recordInShard = -1;
    private long globalRecord = -1;

    RecordView wrap(MappedShard shard, long recordInShard, long globalRecord) {
        this.shard = shard;
        this.recordInShard = recordInShard;
        this.globalRecord = globalRecord;
        entry.wrap(shard.buffer(), shard.structure().entryOffset(recordInShard));
        return this;
    }

    public MappedShard shard() {
        return shard;
    }

    /** Record number within its shard. */
    public long recordInShard() {
        return recordInShard;
    }

    /** Record number within the dataset. */
    public long globalRecord() {
        return globalRecord;
    }

    public Codec codec() {
        return Codec.fromId(entry.codecId());
    }

    public int height() {
        return (int) entry.height();
    }

    public int width() {
        return (int) entry.width();
    }

    public int channels() {
        return entry.channels();
    }

    /** Bytes of the decoded image: height x width x channels. */
    public int decodedBytes() {
        return (int) ShardLayout.decodedBytes(entry.height(), entry.width(), entry.channels());
    }

    /** Class index, or -1 when unlabelled. */
    public int label() {
        return entry.label();
    }

    /** Payload's offset in the shard file (and in {@link #buffer()}). */
    public int payloadOffset() {
        return (int) entry.payloadOffset();
    }

    public int payloadLength() {
        return (int) entry.payloadLength();
    }

    /** Native address of the payload in the mapping, valid while the dataset is open. */
    public long payloadAddress() {
        return shard.buffer().addressOffset() + entry.payloadOffset();
    }

    public int storedCrc() {
        return entry.payloadCrc();
    }

    /** The mapped shard file the payload lives in. */
    public UnsafeBuffer buffer() {
        return shard.buffer();
    }

    public int keyLength() {
        return entry.keyLength();
    }

    /** Copies the key's UTF-8 bytes into {@code destination}; returns their count. Allocation-free. */
    public int copyKey(MutableDirectBuffer destination, int offset) {
        int length = entry.keyLength();
        destination.putBytes(offset, shard.buffer(), keyFileOffset(), length);
        return length;
    }

    /** The record's source id (e.g. original file path). Allocates a String: not for hot paths. */
    public String key() {
        byte[] bytes = new byte[entry.keyLength()];
        shard.buffer().getBytes(keyFileOffset(), bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Whether the payload's CRC32C matches the index. */
    public boolean payloadIntact(Crc32c crc) {
        return crc.compute(shard.buffer(), payloadOffset(), payloadLength()) == entry.payloadCrc();
    }

    private int keyFileOffset() {
        return (int) (shard.structure().keyTableOffset() + entry.keyOffset());
    }

    @Override
    public String toString() {
        return shard == null ? "RecordView[unwrapped]" : "record " + globalRecord + " (" + shard.name() + " #"
            + recordInShard + ", " + codec().label() + " " + height() + "x" + width() + "x" + channels()
            + ", label " + label() + ")";
    }
}
