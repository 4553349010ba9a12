package io.pinshard.spark;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Where a write's tasks put their shards before the job commits: {@code <output>/_pinshard_staging/<query id>/}, one
 * folder per task attempt ({@code p00003-t17-a1}: partition, Spark task id, attempt number), so no two attempts,
 * retried or speculative, ever write the same file. Shard names carry the partition ({@code part-00003-shard-00000
 * .pinshard}), so partitions never collide in the dataset; the header's shard number is the partition-local one, as
 * for merged {@code convert --part} shards. The leading '_' keeps Spark's and Hadoop's listings out of it.
 */
final class Staging {
    static final String FOLDER = "_pinshard_staging";

    private Staging() {
    }

    static Path job(String output, String queryId) {
        return Path.of(output).resolve(FOLDER).resolve(queryId);
    }

    static String attemptFolder(int partition, long taskId, int attempt) {
        return String.format("p%05d-t%d-a%d", partition, taskId, attempt);
    }

    static String shardPrefix(int partition) {
        return String.format("part-%05d-", partition);
    }

    /** Deletes {@code dir} and everything in it; nothing when it is not there. */
    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path folder, IOException e) throws IOException {
                Files.deleteIfExists(folder);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** Removes the job's staging folder, and the staging root when no other job's is left in it. */
    static void removeJob(String output, String queryId) throws IOException {
        Path job = job(output, queryId);
        deleteTree(job);
        try {
            Files.deleteIfExists(job.getParent());
        } catch (java.nio.file.DirectoryNotEmptyException e) {
            // another write into the same directory is under way; its staging stays
        }
    }
}
