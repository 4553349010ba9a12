package io.pinshard.writer.vectors;

import io.pinshard.format.DatasetManifest;
import java.util.List;

/**
 * One committed test vector: either a complete dataset directory ({@code dataset == true}, the name
 * is the directory) or a single shard file (the name is the file).
 */
public record TestVector(String name, boolean dataset, int alignment, List<String> classes, long targetShardBytes,
                         int expectedShards, List<VectorRecord> records, List<DatasetManifest.Rejected> rejected) {
    public TestVector {
        classes = List.copyOf(classes);
        records = List.copyOf(records);
        rejected = List.copyOf(rejected);
    }
}
