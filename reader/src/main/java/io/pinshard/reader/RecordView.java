package io.pinshard.reader;

import io.pinshard.format.Codec;
import io.pinshard.format.Crc32c;
import io.pinshard.format.IndexEntryDescriptor;
import io.pinshard.format.IndexEntryFlyweight;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import io.pinshard.format.ShardLayout;
import io.pinshard.format.ShardStructure;
import java.nio.charset.StandardCharsets;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Reusable view of one record of a mapped shard. Re-point it with {@link Dataset#record(long, RecordView)};
 * one instance per thread serves any number of records without allocating.
 *
 * <p>The file may change under the mapping (another process rewriting or truncating it), so pointing the
 * view copies the record's 40-byte index entry out of the mapping with a JVM-guarded copy and checks the
 * copy again: payload inside the shard's records region, a known codec, a shape within the format's and the
 * dataset's limits and no larger than any record was at open. The accessors read that copy, never the
 * mapping, and stay valid after the dataset is closed. Methods that read payload or key bytes take the
 * dataset's read guard themselves, copy with guarded copies (a fault becomes a {@link ShardFormatException}
 * "shard changed or truncated while mapped", not a crash) and throw "dataset ... is closed" after close.
 */
public final class RecordView {
    private static final Object FAULT_FENCE = new Object();

    private final UnsafeBuffer entryCopy = new UnsafeBuffer(new byte[IndexEntryDescriptor.LENGTH]);
    private final IndexEntryFlyweight entry = new IndexEntryFlyweight().wrap(entryCopy, 0);
    private final UnsafeBuffer addressView = new UnsafeBuffer(0, 0);
    private ReadGuard guard;
    /** The shard guard {@link Dataset#pin} holds for this view until {@link #unpin()}, or null. */
    private ReadGuard pinned;
    private MappedShard shard;
    private long recordInShard = -1;
    private long globalRecord = -1;
    private Codec codec;
    private int height;
    private int width;
    private int channels;
    private int decodedBytes;
    private int label;
    private int payloadOffset;
    private int payloadLength;
    private int storedCrc;
    private int keyOffset;
    private int keyLength;
    /** The dataset the view was pointed through (its schema is the manifest's), or null for a shard on its own. */
    private Dataset owner;
    /** The field whose value was last resolved for this record (-1: none), and where that value lies. */
    private int resolvedField = -1;
    private int resolvedOffset;
    private int resolvedLength;
    private int resolvedWidth;

    RecordView wrap(Dataset owner, MappedShard mapped, long recordInShard, long globalRecord) {
        return wrap(owner.guard(), owner, mapped, recordInShard, globalRecord);
    }

    /** Over a shard opened on its own (the verifier): its own guard and sizes at open. */
    RecordView wrap(MappedShard mapped, long recordInShard, long globalRecord) {
        return wrap(mapped.guard(), null, mapped, recordInShard, globalRecord);
    }

    /** Over shard {@code mapped} of {@code owner} (null: a shard on its own), reads guarded by {@code guard}. */
    RecordView wrap(ReadGuard guard, Dataset owner, MappedShard mapped, long recordInShard, long globalRecord) {
        unpin();
        this.shard = null; // unusable until the new entry has passed its checks
        try {
            guard.acquire();
            try {
                entryCopy.putBytes(0, mapped.buffer, mapped.structure().entryOffset(recordInShard),
                    IndexEntryDescriptor.LENGTH);
                surfaceFaults();
            } finally {
                guard.release();
            }
            return check(guard, owner, mapped, recordInShard, globalRecord);
        } catch (InternalError fault) { // may surface after the copy, while checking it
            throw changedWhileMapped(mapped.dataset(), mapped.name(), recordInShard, fault);
        }
    }

    private RecordView check(ReadGuard guard, Dataset owner, MappedShard mapped, long recordInShard, long globalRecord) {
        ShardStructure structure = mapped.structure();
        try {
            // The same checks as at open (the entry may have been rewritten since), less the overlap with its
            // neighbour, which cannot make a read leave the records region.
            IndexEntryDescriptor.checkEntry(entry, structure.recordsStart(), structure.recordsEnd(),
                structure.alignment(), structure.recordsStart(), structure.keyTableLength());
            if (owner != null) {
                IndexEntryDescriptor.checkLabel(entry.label(), owner.classes().size());
            }
        } catch (ShardFormatException e) {
            throw new ShardFormatException(e.kind(), mapped.dataset(), mapped.name(), recordInShard,
                e.detail() + " (the index changed after the shard was opened)", null);
        }
        Codec entryCodec = Codec.fromId(entry.codecId());
        long decoded = ShardLayout.decodedBytes(entry.height(), entry.width(), entry.channels());
        // A dataset's largest sizes grow as shards are first used: check against the shard's own, known since its
        // index was checked (which happened before this view could reach it).
        long maxDecoded = mapped.maxDecodedBytes(entryCodec);
        long maxPayload = mapped.maxPayloadBytes(entryCodec);
        if (decoded > maxDecoded || entry.payloadLength() > maxPayload) {
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY, mapped.dataset(), mapped.name(), recordInShard,
                entryCodec.label() + " record of " + entry.payloadLength() + " bytes decoding to " + decoded
                + " bytes is larger than any record of its shard was when its index was checked (the index changed"
                + " since)", null);
        }
        this.codec = entryCodec;
        this.height = (int) entry.height();
        this.width = (int) entry.width();
        this.channels = entry.channels();
        this.decodedBytes = (int) decoded;
        this.label = entry.label();
        this.payloadOffset = (int) entry.payloadOffset();
        this.payloadLength = (int) entry.payloadLength();
        this.storedCrc = entry.payloadCrc();
        this.keyOffset = (int) (structure.keyTableOffset() + entry.keyOffset());
        this.keyLength = entry.keyLength();
        this.guard = guard;
        this.owner = owner;
        this.resolvedField = -1;
        this.shard = mapped;
        this.recordInShard = recordInShard;
        this.globalRecord = globalRecord;
        return this;
    }

    public MappedShard shard() {
        return shard;
    }

    void pinned(ReadGuard shardGuard) {
        this.pinned = shardGuard;
    }

    /**
     * Lets go of the shard {@link Dataset#pin} kept mapped for this view (it may be evicted from now on); harmless
     * when nothing is pinned. The view still describes its record, but reads through it may fail once the shard
     * is evicted. Allocation-free.
     */
    public void unpin() {
        ReadGuard held = pinned;
        if (held != null) {
            pinned = null;
            held.release();
        }
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
        return codec;
    }

    public int height() {
        return height;
    }

    public int width() {
        return width;
    }

    public int channels() {
        return channels;
    }

    /** Bytes of the decoded image: height x width x channels. */
    public int decodedBytes() {
        return decodedBytes;
    }

    /** Class index, or -1 when unlabelled. */
    public int label() {
        return label;
    }

    /** Payload's offset in the shard file (and in {@link #buffer()}). */
    public int payloadOffset() {
        return payloadOffset;
    }

    public int payloadLength() {
        return payloadLength;
    }

    /**
     * Native address of the payload in the mapping, valid while the dataset is open. Only JVM-guarded reads
     * (Agrona/Unsafe copies, the Vector API) may read it, between {@link Dataset#acquire()} and release: native
     * code reading a mapping whose file was truncated crashes the JVM. Native decoders get a copy
     * ({@link #copyPayload}).
     */
    public long payloadAddress() {
        MappedShard mapped = shardOrThrow();
        if (guard.isClosed()) {
            throw guard.closedException();
        }
        return mapped.buffer.addressOffset() + payloadOffset;
    }

    public int storedCrc() {
        return storedCrc;
    }

    /** The mapped shard file the payload lives in (same rules as {@link #payloadAddress()}). */
    public UnsafeBuffer buffer() {
        return shardOrThrow().buffer();
    }

    public int keyLength() {
        return keyLength;
    }

    /**
     * Copies {@code length} payload bytes from {@code from} (relative to the payload) to native memory at
     * {@code address} with a JVM-guarded copy. Allocation-free.
     *
     * @throws ShardFormatException  "shard changed or truncated while mapped" when the mapping faults
     * @throws IllegalStateException when the dataset is closed
     */
    public void copyPayload(int from, int length, long address) {
        if (from < 0 || length < 0 || from > payloadLength - length) {
            throw new IndexOutOfBoundsException("bytes [" + from + ", +" + length + ") of a " + payloadLength
                + "-byte payload");
        }
        shardOrThrow();
        addressView.wrap(address, length);
        guardedCopy(addressView, 0, payloadOffset + from, length);
    }

    /** Copies the key's UTF-8 bytes into {@code destination}; returns their count. Allocation-free. */
    public int copyKey(MutableDirectBuffer destination, int offset) {
        guardedCopy(destination, offset, keyOffset, keyLength);
        return keyLength;
    }

    /** The record's source id (e.g. original file path). Allocates a String: not for hot paths. */
    public String key() {
        try {
            byte[] bytes = new byte[keyLength];
            copyKey(new UnsafeBuffer(bytes), 0);
            return new String(bytes, StandardCharsets.UTF_8);
        } catch (InternalError fault) {
            throw changedWhileMapped(shard.dataset(), shard.name(), recordInShard, fault);
        }
    }

    /**
     * File offset (in {@link #buffer()}) of this record's value of field {@code field} (its position in the dataset's
     * schema, {@link Dataset#fieldIndex}). The shard's fields section is checked on the first field read of each
     * shard (SPEC.md section 17.4); a variable-length value's offsets are checked again on every read. Allocation-free.
     *
     * @throws ShardFormatException naming dataset, shard, record and field when the section or value is bad
     */
    public int fieldOffset(int field) {
        resolve(field);
        return resolvedOffset;
    }

    /** Bytes of this record's value of {@code field} (see {@link #fieldOffset}): UTF-8 bytes for text. */
    public int fieldLength(int field) {
        resolve(field);
        return resolvedLength;
    }

    /** Elements of this record's value of {@code field}: its bytes over the type's element size. */
    public int fieldElements(int field) {
        resolve(field);
        return resolvedLength / resolvedWidth;
    }

    /** Native address of this record's value of {@code field}: the rules of {@link #payloadAddress()} apply. */
    public long fieldAddress(int field) {
        resolve(field);
        if (guard.isClosed()) {
            throw guard.closedException();
        }
        return shard.buffer.addressOffset() + resolvedOffset;
    }

    /** Element {@code index} of an int32 field's value (guarded read). */
    public int fieldInt(int field, int index) {
        return (int) readElement(element(field, index, 4), 4);
    }

    /** Element {@code index} of an int64 field's value (guarded read). */
    public long fieldLong(int field, int index) {
        return readElement(element(field, index, 8), 8);
    }

    /** Element {@code index} of a float32 field's value (guarded read). */
    public float fieldFloat(int field, int index) {
        return Float.intBitsToFloat(fieldInt(field, index));
    }

    /** Copies this record's value of {@code field} into {@code destination}; returns its length. Allocation-free. */
    public int copyField(int field, MutableDirectBuffer destination, int offset) {
        resolve(field);
        guardedCopy(destination, offset, resolvedOffset, resolvedLength);
        return resolvedLength;
    }

    /** Copies this record's value of {@code field} to native memory at {@code address}; returns its length. */
    public int copyField(int field, long address) {
        resolve(field);
        addressView.wrap(address, Math.max(resolvedLength, 1));
        guardedCopy(addressView, 0, resolvedOffset, resolvedLength);
        return resolvedLength;
    }

    /** This record's value of a byte-typed {@code field} as text (UTF-8, malformed bytes replaced). Allocates. */
    public String fieldString(int field) {
        resolve(field);
        byte[] bytes = new byte[resolvedLength];
        copyField(field, new UnsafeBuffer(bytes), 0);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Offset of element {@code index} of {@code field}, whose elements must be {@code width} bytes wide. */
    private int element(int field, int index, int width) {
        resolve(field);
        if (resolvedWidth != width) {
            throw new IllegalArgumentException("field " + field + " has " + resolvedWidth + "-byte elements, not "
                + width + "-byte ones");
        }
        if (index < 0 || index >= resolvedLength / width) {
            throw new IndexOutOfBoundsException("element " + index + " of a field value of " + resolvedLength / width
                + " elements");
        }
        return resolvedOffset + index * width;
    }

    /** A 4- or 8-byte little-endian read of the mapping at {@code at}, guarded. */
    private long readElement(int at, int width) {
        MappedShard mapped = shardOrThrow();
        guard.acquire();
        try {
            long value = width == 8 ? mapped.buffer.getLong(at, java.nio.ByteOrder.LITTLE_ENDIAN)
                : mapped.buffer.getInt(at, java.nio.ByteOrder.LITTLE_ENDIAN);
            surfaceFaults();
            return value;
        } catch (InternalError fault) {
            throw changedWhileMapped(mapped.dataset(), mapped.name(), recordInShard, fault);
        } finally {
            guard.release();
        }
    }

    /** Copies {@code length} bytes at file offset {@code from} to {@code destination}, guarded. */
    private void guardedCopy(MutableDirectBuffer destination, int offset, int from, int length) {
        MappedShard mapped = shardOrThrow();
        guard.acquire();
        try {
            destination.putBytes(offset, mapped.buffer, from, length);
            surfaceFaults();
        } catch (InternalError fault) {
            throw changedWhileMapped(mapped.dataset(), mapped.name(), recordInShard, fault);
        } finally {
            guard.release();
        }
    }

    /** Finds where this record's value of {@code field} lies (once per field and record). */
    private void resolve(int field) {
        if (field == resolvedField && field >= 0) {
            return;
        }
        MappedShard mapped = shardOrThrow();
        guard.acquire();
        try {
            ShardFields fields = mapped.fields(owner == null ? null : owner.fields());
            if (fields == null) {
                throw new IllegalArgumentException("shard " + mapped.name() + " has no fields");
            }
            if (field < 0 || field >= fields.schema().size()) {
                throw new IndexOutOfBoundsException("field " + field + " of a schema of " + fields.schema().size());
            }
            long span = fields.span(mapped.buffer, field, recordInShard);
            surfaceFaults();
            resolvedOffset = ShardFields.offsetOf(span);
            resolvedLength = ShardFields.lengthOf(span);
            resolvedWidth = fields.schema().get(field).type().elementBytes();
            resolvedField = field;
        } catch (ShardFormatException e) {
            throw e.in(mapped.dataset(), mapped.name());
        } catch (InternalError fault) {
            throw changedWhileMapped(mapped.dataset(), mapped.name(), recordInShard, fault);
        } finally {
            guard.release();
        }
    }

    /**
     * Whether the payload's CRC32C matches the index. Reads the mapping through guarded copies (the CRC
     * intrinsic reading a truncated mapping directly would crash the JVM).
     */
    public boolean payloadIntact(Crc32c crc) {
        MappedShard mapped = shardOrThrow();
        guard.acquire();
        try {
            // An address-only view has no ByteBuffer, so Crc32c copies it through its scratch with getBytes.
            addressView.wrap(mapped.buffer.addressOffset() + payloadOffset, payloadLength);
            boolean intact = crc.compute(addressView, 0, payloadLength) == storedCrc;
            surfaceFaults();
            return intact;
        } catch (InternalError fault) {
            throw changedWhileMapped(mapped.dataset(), mapped.name(), recordInShard, fault);
        } finally {
            guard.release();
        }
    }

    /** The exception for a record whose shard faulted under a guarded read. */
    public ShardFormatException corrupt(Kind kind, String detail) {
        MappedShard mapped = shardOrThrow();
        return new ShardFormatException(kind, mapped.dataset(), mapped.name(), recordInShard,
            detail + " (dataset record " + globalRecord + ")", null);
    }

    /**
     * The error for a guarded read of a mapping that faulted (HotSpot turns the SIGBUS of a read past the end
     * of a truncated file into {@link InternalError} for its own Unsafe accesses).
     */
    public static ShardFormatException changedWhileMapped(String dataset, String shard, long record, Throwable fault) {
        ReadGuard.mappingFaulted();
        return new ShardFormatException(Kind.TRUNCATED, dataset, shard, record,
            "shard changed or truncated while mapped (" + fault.getMessage() + ")", fault);
    }

    /**
     * HotSpot reports the fault of a guarded copy asynchronously. On JDK 21 and later a native call such as this
     * one makes it surface here, inside the caller's catch; JDK 17 delivers it a little later, so the entry
     * points (this class, {@link RecordDecoder}, the loader's sample step and worker) catch it too.
     */
    public static void surfaceFaults() {
        Thread.holdsLock(FAULT_FENCE);
    }

    /** The shard, or why there is none. */
    private MappedShard shardOrThrow() {
        MappedShard mapped = shard;
        if (mapped == null) {
            throw new IllegalStateException("record view is not pointed at a record");
        }
        return mapped;
    }

    @Override
    public String toString() {
        return shard == null ? "RecordView[unwrapped]" : "record " + globalRecord + " (" + shard.name() + " #"
            + recordInShard + ", " + codec.label() + " " + height + "x" + width + "x" + channels
            + ", label " + label + ")";
    }
}
