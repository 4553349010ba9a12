package io.pinshard.reader;

import io.pinshard.format.Printable;
import io.pinshard.format.ShardFormatException.Kind;

/**
 * One thing {@link DatasetVerifier} found wrong.
 *
 * @param shard  shard file name, or null for dataset-level problems
 * @param record record number within the shard, or -1
 */
public record Problem(Kind kind, String shard, long record, String detail) {
    /** One line, control characters escaped: shard names and keys come from untrusted files. */
    @Override
    public String toString() {
        return Printable.escape((shard != null ? shard : "dataset") + (record >= 0 ? " record " + record : "") + ": "
            + detail + " [" + kind + "]");
    }
}
