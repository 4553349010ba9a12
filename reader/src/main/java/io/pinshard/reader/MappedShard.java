package io.pinshard.reader;

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
 * tiling, index checksum, every index entry) before anything else may read it, so the offsets in the
 * index can afterwards be used directly. The mapping is released by {@link #close()}.
 */
public final class MappedShard implements AutoCloseable {
    private final Path path;
    private final String dataset;
    private final MappedByteBuffer mapping;
    private final UnsafeBuffer buffer;
    private final ShardStructure structure;

    private MappedShard(Path path, String dataset, MappedByteBuffer mapping, ShardStructure structure) {
        this.path = path;
        this.dataset = dataset;
        this.mapping = mapping;
        this.buffer = new UnsafeBuffer(mapping);
        this.structure = structure;
    }

    /**
     * Maps and validates a shard.
     *
     * @param dataset       the dataset's name for error messages (may be null)
     * @param checkIndexCrc whether to checksum the index at open (a scan of 40 bytes per record)
     */
    public static MappedShard open(Path path, String dataset, boolean checkIndexCrc) {
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
        } catch (RuntimeException e) {
            throw new ShardFormatException(Kind.IO_ERROR, dataset, shardName, -1, "cannot map: " + e.getMessage(), e);
        }
        try {
            ShardStructure structure = ShardStructure.read(new UnsafeBuffer(mapping), new Crc32c(), checkIndexCrc);
            return new MappedShard(path, dataset, mapping, structure);
        } catch (ShardFormatException e) {
            IoUtil.unmap(mapping);
            throw e.in(dataset, shardName);
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

    /** The whole file; offsets are file offsets. */
    public UnsafeBuffer buffer() {
        return buffer;
    }

    public ShardStructure structure() {
        return structure;
    }

    public long recordCount() {
        return structure.recordCount();
    }

    @Override
    public void close() {
        IoUtil.unmap(mapping);
    }
}
