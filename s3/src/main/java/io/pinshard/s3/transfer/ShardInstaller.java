package io.pinshard.s3.transfer;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.ManifestRules;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.reader.Problem;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * The step between a downloaded file and a shard anyone may map: check it against its manifest entry, then rename
 * it into place atomically, so that no partial or wrong file ever carries a shard's name. The checks are {@link
 * DatasetVerifier#verifyShardFile}'s, those {@code verify --no-decode} makes of each listed shard: length and
 * whole-file CRC32C against the manifest, structure, header shard number, section checksums, every payload checksum
 * and must-be-zero gap, labels. Used by {@code pull}; one instance per manifest, safe to share between threads.
 */
public final class ShardInstaller {
    private final DatasetManifest manifest;
    private final String dataset;
    private final int[] expectedNumbers;

    /**
     * @param dataset how problems name the dataset ({@code s3://bucket/prefix})
     */
    public ShardInstaller(DatasetManifest manifest, String dataset) {
        this.manifest = manifest;
        this.dataset = dataset;
        this.expectedNumbers = ManifestRules.expectedShardNumbers(manifest.shards()); // once, not once per shard
    }

    /** What is wrong with {@code file} as listed shard {@code position}, or null when it is that shard. */
    public String check(Path file, int position) {
        return summary(DatasetVerifier.checksumsOnly().verifyShardFile(file, dataset, manifest, position,
            expectedNumbers[position]));
    }

    private static String summary(List<Problem> problems) {
        return problems.isEmpty() ? null : Problem.summary(problems);
    }

    /**
     * Checks {@code staged} (a complete download of listed shard {@code position}, on the same file system as
     * {@code target}) as {@link #check} does, but with the whole-file CRC32C its download computed as the bytes
     * arrived instead of a pass reading them back, then renames it to {@code target}. {@code staged} is already
     * on disk: {@code ObjectDownload.to}, which wrote it, forces it before it returns (a crash must not leave a
     * named but empty file), so it is not forced a second time here.
     *
     * @param source      where the bytes came from, for the message ({@code s3://bucket/key})
     * @param stagedCrc32c the CRC32C of {@code staged}'s bytes ({@code ObjectDownload.Body#crc32c})
     * @throws TransferException naming {@code source} and what differed; {@code staged} is deleted and
     *                           {@code target} left as it was
     */
    public void install(Path staged, Path target, int position, String source, int stagedCrc32c) {
        String problem = summary(DatasetVerifier.checksumsOnly().verifyDownloadedShard(staged, dataset, manifest,
            position, expectedNumbers[position], stagedCrc32c));
        if (problem != null) {
            deleteQuietly(staged);
            throw new TransferException(source + ": the download failed its checks (" + problem + "); not installed");
        }
        try {
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
