package io.pinshard.reader;

import io.pinshard.format.Codec;
import io.pinshard.format.Crc32c;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import io.pinshard.format.ShardLayout;
import io.pinshard.format.ShardStructure;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One shard file mapped read-only. {@link #open} validates the whole structure (header, footer, section
 * tiling, index checksum, every index entry); {@link #openFrame} validates the frame only (header, footer,
 * tiling: O(1)) and leaves the index to {@link #checkIndex}, which a {@link Dataset} calls before the shard's
 * first record is used, so that opening a dataset costs O(shards), not O(records). Checking the index records
 * the largest payload and decoded size per codec, which bound what any later read of this shard may claim (the
 * index can change under the mapping: readers re-check each entry they use, see {@link RecordView}). The mapping
 * is released by {@link #close()}, after which {@link #buffer()} refuses; closing twice is harmless.
 */
public final class MappedShard implements AutoCloseable {
    private final Path path;
    private final String dataset;
    private final MappedByteBuffer mapping;
    final UnsafeBuffer buffer;
    private final ShardStructure structure;
    private final ReadGuard guard;
    private final boolean checkIndexCrc;
    private final RecordLimits limits;
    private final long[] maxPayloadBytes = new long[Codec.values().length];
    private final long[] maxDecodedBytes = new long[Codec.values().length];
    /** Written last by {@link #checkIndex}: a reader that sees true sees the sizes too. */
    private volatile boolean indexChecked;
    /** Set by {@link #fields} once the fields section passed its checks (null: not yet, or none). */
    private volatile ShardFields fields;
    private volatile boolean fieldsChecked;

    private MappedShard(Path path, String dataset, MappedByteBuffer mapping, UnsafeBuffer buffer,
                        ShardStructure structure, boolean checkIndexCrc, RecordLimits limits) {
        this.path = path;
        this.dataset = dataset;
        this.mapping = mapping;
        this.buffer = buffer;
        this.structure = structure;
        this.guard = new ReadGuard("shard " + path);
        this.checkIndexCrc = checkIndexCrc;
        this.limits = limits;
    }

    /** Maps and validates a shard against the format's limits only. */
    public static MappedShard open(Path path, String dataset, boolean checkIndexCrc) {
        return open(path, dataset, checkIndexCrc, RecordLimits.NONE);
    }

    /**
     * Maps and validates a shard, its index included.
     *
     * @param dataset       the dataset's name for error messages (may be null)
     * @param checkIndexCrc whether to checksum the index (a scan of 40 bytes per record)
     * @param limits        the shapes the dataset's preprocessing allows ({@link RecordLimits#of})
     */
    public static MappedShard open(Path path, String dataset, boolean checkIndexCrc, RecordLimits limits) {
        MappedShard shard = openFrame(path, dataset, checkIndexCrc, limits);
        try {
            shard.checkIndex();
        } catch (RuntimeException | Error e) {
            IoUtil.unmap(shard.mapping);
            throw e;
        }
        return shard;
    }

    /**
     * Maps a shard and validates its frame only; {@link #checkIndex} (with these {@code checkIndexCrc} and
     * {@code limits}) must pass before any of its records is used.
     */
    public static MappedShard openFrame(Path path, String dataset, boolean checkIndexCrc, RecordLimits limits) {
        String shardName = path.getFileName().toString();
        long size;
        try {
            size = Files.size(path);
        } catch (IOException e) {
            throw new ShardFormatException(Kind.IO_ERROR, dataset, shardName, -1, "cannot read: " + e, e);
        }
        if (size > ShardLayout.MAX_SHARD_BYTES) {
            throw new ShardFormatException(Kind.TOO_LARGE, dataset, shardName, -1, "file holds " + size
                + " bytes, more than the format's limit of " + ShardLayout.MAX_SHARD_BYTES, null);
        }
        if (size == 0) {
            throw new ShardFormatException(Kind.TRUNCATED, dataset, shardName, -1, "file is empty", null);
        }
        MappedByteBuffer mapping;
        try {
            mapping = IoUtil.mapExistingFile(path.toFile(), FileChannel.MapMode.READ_ONLY, shardName, 0, size);
        } catch (Exception e) { // Agrona rethrows FileChannel.map's checked IOException ("Map failed") unchecked
            throw new ShardFormatException(Kind.IO_ERROR, dataset, shardName, -1, "cannot map: " + e, e);
        }
        try {
            UnsafeBuffer buffer = new UnsafeBuffer(mapping);
            ShardStructure structure = ShardStructure.readFrame(buffer, new Crc32c());
            return new MappedShard(path, dataset, mapping, buffer, structure, checkIndexCrc, limits);
        } catch (ShardFormatException e) {
            IoUtil.unmap(mapping);
            throw e.in(dataset, shardName);
        } catch (InternalError e) {
            IoUtil.unmap(mapping);
            throw RecordView.changedWhileMapped(dataset, shardName, -1, e);
        } catch (RuntimeException | Error e) {
            IoUtil.unmap(mapping);
            throw e;
        }
    }

    /** Whether {@link #checkIndex} has passed. */
    public boolean isIndexChecked() {
        return indexChecked;
    }

    /**
     * Checks the index once (its CRC32C unless opened without, then every entry against the format and the
     * dataset's limits) and records the largest sizes; later calls return at once. The caller keeps the mapping
     * valid meanwhile (inside a read guard). A failure is thrown again by every later call, not remembered.
     *
     * @throws ShardFormatException naming dataset, shard and the first bad record
     */
    public void checkIndex() {
        if (indexChecked) {
            return;
        }
        synchronized (this) {
            if (indexChecked) {
                return;
            }
            long[] maxPayload = new long[maxPayloadBytes.length];
            long[] maxDecoded = new long[maxDecodedBytes.length];
            try {
                // One walk over the index: the format's checks, then the dataset's limits and the largest sizes.
                structure.checkIndex(buffer, new Crc32c(), checkIndexCrc, (record, entry) -> {
                    limits.check(entry);
                    int codec = entry.codecId();
                    maxPayload[codec] = Math.max(maxPayload[codec], entry.payloadLength());
                    maxDecoded[codec] = Math.max(maxDecoded[codec],
                        ShardLayout.decodedBytes(entry.height(), entry.width(), entry.channels()));
                });
            } catch (ShardFormatException e) {
                throw e.in(dataset, name());
            } catch (InternalError e) {
                throw RecordView.changedWhileMapped(dataset, name(), -1, e);
            }
            System.arraycopy(maxPayload, 0, maxPayloadBytes, 0, maxPayload.length);
            System.arraycopy(maxDecoded, 0, maxDecodedBytes, 0, maxDecoded.length);
            indexChecked = true;
        }
    }

    /**
     * The shard's fields section, checked on first use (SPEC.md section 17.4: metadata, schema against
     * {@code expected}, placement, the section's CRC32C unless opened without index CRC checks, header, directory and
     * every variable column's offsets) and kept; null when the shard has no fields. Later calls return at once; a
     * failure is thrown again by every later call. The caller keeps the mapping valid meanwhile (a read guard).
     *
     * @param expected the dataset's schema, or null to take the shard metadata's own
     * @throws ShardFormatException naming dataset, shard and the field (and record) that is wrong
     */
    public ShardFields fields(List<FieldSchema> expected) {
        if (fieldsChecked) {
            return fields;
        }
        synchronized (this) {
            if (!fieldsChecked) {
                try {
                    fields = ShardFields.check(buffer, structure, expected, checkIndexCrc, new Crc32c());
                } catch (ShardFormatException e) {
                    throw e.in(dataset, name());
                } catch (InternalError e) {
                    throw RecordView.changedWhileMapped(dataset, name(), -1, e);
                }
                fieldsChecked = true;
            }
            return fields;
        }
    }

    public Path path() {
        return path;
    }

    public String name() {
        return path.getFileName().toString();
    }

    public String dataset() {
        return dataset;
    }

    /** The whole file; offsets are file offsets. Valid until {@link #close()}, refused after it. */
    public UnsafeBuffer buffer() {
        if (guard.isClosed()) {
            throw guard.closedException();
        }
        return buffer;
    }

    /**
     * Points {@code view} at record {@code recordInShard} of this shard opened on its own (not through a {@link
     * Dataset}): the shard's own read guard and sizes at open; labels are not checked against a class list.
     *
     * @param globalRecord what {@link RecordView#globalRecord()} reports
     */
    public RecordView record(long recordInShard, long globalRecord, RecordView view) {
        if (recordInShard < 0 || recordInShard >= recordCount()) {
            throw new IndexOutOfBoundsException("record " + recordInShard + " of shard " + name() + " holding " + recordCount());
        }
        if (!indexChecked) {
            acquire();
            try {
                checkIndex();
            } finally {
                release();
            }
        }
        return view.wrap(this, recordInShard, globalRecord);
    }

    public ShardStructure structure() {
        return structure;
    }

    public long recordCount() {
        return structure.recordCount();
    }

    /** Largest payload of any {@code codec} record (0 when it holds none, or before {@link #checkIndex}). */
    public long maxPayloadBytes(Codec codec) {
        return maxPayloadBytes[codec.id()];
    }

    /** Largest decoded size of any {@code codec} record (0 when it holds none, or before {@link #checkIndex}). */
    public long maxDecodedBytes(Codec codec) {
        return maxDecodedBytes[codec.id()];
    }

    /** Enters a read of this shard's mapping on its own (a {@link Dataset} guards all its shards with one guard). */
    public void acquire() {
        guard.acquire();
    }

    public void release() {
        guard.release();
    }

    ReadGuard guard() {
        return guard;
    }

    public boolean isClosed() {
        return guard.isClosed();
    }

    /** Waits for readers inside {@link #acquire()}, then unmaps; harmless when called again. */
    @Override
    public void close() {
        if (guard.close() == ReadGuard.Outcome.CLOSED) {
            IoUtil.unmap(mapping);
        }
    }

    /** Unmaps now if no reader is inside ({@link ReadGuard#tryClose}): true when this call closed it. */
    boolean tryClose() {
        if (guard.tryClose()) {
            IoUtil.unmap(mapping);
            return true;
        }
        return false;
    }

    /** Refuses further use without unmapping: the mapping goes when the garbage collector finds it unreachable. */
    void abandon() {
        guard.close();
    }
}
