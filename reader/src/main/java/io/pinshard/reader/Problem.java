package io.pinshard.reader;

import io.pinshard.format.ShardFormatException.Kind;

/**
 * One thing {@link DatasetVerifier} found wrong.
 *
 * @param shard  shard file name, or null for dataset-level problems
 * @param record record number within the shard, or -1
 */
public record Problem(Kind kind, String shard, long record, String detail) {
    @Override
    public String toString() {
        return (shard != null ? shard : "dataset") + (record >= 0 ? " record " + record : "") + ": " + detail
            + " [" + kind + "]";
    }
}
