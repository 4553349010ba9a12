package io.pinshard.reader;

import io.pinshard.format.Printable;
import io.pinshard.format.ShardFormatException.Kind;
import java.util.List;
import java.util.stream.Collectors;

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

    /** The first three of {@code problems} on one line, then how many more there are. */
    public static String summary(List<Problem> problems) {
        return problems.stream().limit(3).map(Problem::toString).collect(Collectors.joining("; "))
            + (problems.size() > 3 ? "; and " + (problems.size() - 3) + " more" : "");
    }
}
