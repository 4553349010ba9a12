package io.pinshard.spark;

import java.util.List;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * What one committed task attempt hands the driver: the folder its shards wait in, their manifest entries, the
 * inputs it rejected (with reasons) and its counts. Only this message's shards become part of the dataset.
 *
 * @param inputs  images given to the task (written + rejected)
 * @param ignored rows skipped as convert skips files (hidden, not an image extension), not counted in inputs
 */
record TaskCommit(int partition, long taskId, int attempt, String staging, List<StagedShard> shards,
                  List<Rejection> rejected, long inputs, long ignored) implements WriterCommitMessage {

    /** A finished shard in the staging folder, as its manifest entry will list it. */
    record StagedShard(String file, long records, long bytes, String crc32c) implements java.io.Serializable {
    }

    /** A rejected input and why (the manifest's rejected entry). */
    record Rejection(String path, String reason) implements java.io.Serializable {
    }

    long records() {
        return shards.stream().mapToLong(StagedShard::records).sum();
    }
}
