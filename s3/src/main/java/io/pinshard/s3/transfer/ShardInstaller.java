package io.pinshard.s3.transfer;

import io.pinshard.format.Crc32c;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.ManifestRules;
import io.pinshard.format.ShardFormatException;
import io.pinshard.reader.MappedShard;
import io.pinshard.reader.RecordLimits;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The step between a downloaded file and a shard anyone may map: check it against its manifest entry, then rename
 * it into place atomically, so that no partial or wrong file ever carries a shard's name. The checks are the size,
 * the whole-file CRC32C (every byte, against the manifest), the structure ({@link MappedShard#open}: header,
 * footer, index checksum, every index entry against the format's and the dataset's limits), the record count and
 * the header's shard number. Used by {@code pull}; one instance per manifest, safe to share between threads.
 */
public final class ShardInstaller {
    private final DatasetManifest manifest;
    private final int[] expectedNumbers;
    private final RecordLimits limits;

    public ShardInstaller(DatasetManifest manifest) {
        this.manifest = manifest;
        this.expectedNumbers = ManifestRules.expectedShardNumbers(manifest.shards());
        this.limits = RecordLimits.of(manifest);
    }

    /**
     * What is wrong with {@code file} as listed shard {@code position}, or null when it is that shard.
     */
    public String check(Path file, int position) {
        DatasetManifest.ShardEntry entry = manifest.shards().get(position);
        long size;
        try {
            size = Files.size(file);
        } catch (IOException e) {
            return "cannot read: " + e;
        }
        if (size != entry.bytes()) {
            return "holds " + size + " bytes, the manifest says " + entry.bytes();
        }
        try (MappedShard shard = MappedShard.open(file, null, true, limits)) {
            UnsafeBuffer buffer = shard.buffer();
            String crc = Crc32c.hex(new Crc32c().compute(buffer, 0, buffer.capacity()));
            if (!crc.equals(entry.crc32c())) {
                return "CRC32C is " + crc + ", the manifest says " + entry.crc32c();
            }
            if (shard.recordCount() != entry.records()) {
                return "holds " + shard.recordCount() + " records, the manifest says " + entry.records();
            }
            if (shard.structure().shardNumber() != expectedNumbers[position]) {
                return "header shard number is " + Integer.toUnsignedString(shard.structure().shardNumber())
                    + ", its place in the manifest says " + expectedNumbers[position];
            }
        } catch (ShardFormatException e) {
            return e.kind() + ": " + e.detail();
        }
        return null;
    }

    /**
     * Checks {@code staged} (a complete download of listed shard {@code position}, on the same file system as
     * {@code target}), forces it to disk and renames it to {@code target}.
     *
     * @param source where the bytes came from, for the message ({@code s3://bucket/key})
     * @throws TransferException naming {@code source} and what differed; {@code staged} is deleted and
     *                           {@code target} left as it was
     */
    public void install(Path staged, Path target, int position, String source) {
        String problem = check(staged, position);
        if (problem != null) {
            deleteQuietly(staged);
            throw new TransferException(source + ": downloaded shard " + manifest.shards().get(position).file() + " "
                + problem + "; not installed");
        }
        try {
            try (FileChannel channel = FileChannel.open(staged, StandardOpenOption.WRITE)) {
                channel.force(true); // before the rename: a crash must not leave a named but empty file
            }
            Files.move(staged, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            deleteQuietly(staged);
            throw new TransferException(staged + " and " + target + " are on different file systems: no atomic rename", e);
        } catch (IOException e) {
            deleteQuietly(staged);
            throw new TransferException("cannot move " + staged + " to " + target + ": " + e, e);
        }
    }

    static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // a leftover in the staging folder is removed by the next run
        }
    }
}
