package io.pinshard.reader;

import io.pinshard.format.Codec;
import io.pinshard.format.Crc32c;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import io.pinshard.format.ShardLayout;
import io.pinshard.format.ShardStructure;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One shard file mapped read-only. Opening validates the whole structure (header, footer, section
 * tiling, index checksum, every index entry) and records the largest payload and decoded size per codec,
 * which bound what any later read of this shard may claim (the index can change under the mapping: readers
 * re-check each entry they use, see {@link RecordView}). The mapping is released by {@link #close()}, after
 * which {@link #buffer()} refuses; closing twice is harmless.
 */
public final class MappedShard implements AutoCloseable {
    private final Path path;
    private final String dataset;
    private final MappedByteBuffer mapping;
    final UnsafeBuffer buffer;
    private final ShardStructure structure;
    private final ReadGuard guard;
    private final long[] maxPayloadBytes;
    private final long[] maxDecodedBytes;

    private MappedShard(Path path, String dataset, MappedByteBuffer mapping, UnsafeBuffer buffer,
                        ShardStructure structure, long[] maxPayloadBytes, long[] maxDecodedBytes) {
        this.path = path;
        this.dataset = dataset;
        this.mapping = mapping;
        this.buffer = buffer;
        this.structure = structure;
        this.guard = new ReadGuard("shard " + path);
        this.maxPayloadBytes = maxPayloadBytes;
        this.maxDecodedBytes = maxDecodedBytes;
    }

    /** Maps and validates a shard against the format's limits only. */
    public static MappedShard open(Path path, String dataset, boolean checkIndexCrc) {
        return open(path, dataset, checkIndexCrc, RecordLimits.NONE);
    }

    /**
     * Maps and validates a shard.
     *
     * @param dataset       the dataset's name for error messages (may be null)
     * @param checkIndexCrc whether to checksum the index at open (a scan of 40 bytes per record)
     * @param limits        the shapes the dataset's preprocessing allows ({@link RecordLimits#of})
     */
    public static MappedShard open(Path path, String dataset, boolean checkIndexCrc, RecordLimits limits) {
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
            long[] maxPayload = new long[Codec.values().length];
            long[] maxDecoded = new long[Codec.values().length];
            // One walk over the index: the format's checks, then the dataset's limits and the largest sizes.
            ShardStructure structure = ShardStructure.read(buffer, new Crc32c(), checkIndexCrc, (record, entry) -> {
                limits.check(entry);
                int codec = entry.codecId();
                maxPayload[codec] = Math.max(maxPayload[codec], entry.payloadLength());
                maxDecoded[codec] = Math.max(maxDecoded[codec],
                    ShardLayout.decodedBytes(entry.height(), entry.width(), entry.channels()));
            });
            return new MappedShard(path, dataset, mapping, buffer, structure, maxPayload, maxDecoded);
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
        return view.wrap(this, recordInShard, globalRecord);
    }

    public ShardStructure structure() {
        return structure;
    }

    public long recordCount() {
        return structure.recordCount();
    }

    /** Largest payload of any {@code codec} record at open (0 when it holds none). */
    public long maxPayloadBytes(Codec codec) {
        return maxPayloadBytes[codec.id()];
    }

    /** Largest decoded size of any {@code codec} record at open (0 when it holds none). */
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

    /** Refuses further use without unmapping: the mapping goes when the garbage collector finds it unreachable. */
    void abandon() {
        guard.close();
    }
}
