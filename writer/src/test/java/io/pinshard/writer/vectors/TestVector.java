package io.pinshard.writer.vectors;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.FieldSchema;
import java.util.List;

/**
 * One committed test vector: either a complete dataset directory ({@code dataset == true}, the name
 * is the directory) or a single shard file (the name is the file). With {@code fields} (format 1.1) every record
 * holds one value per field ({@link VectorRecord#fieldValues()}).
 */
public record TestVector(String name, boolean dataset, int alignment, List<String> classes, long targetShardBytes,
                         int expectedShards, List<VectorRecord> records, List<DatasetManifest.Rejected> rejected,
                         List<FieldSchema> fields) {
    public TestVector {
        classes = List.copyOf(classes);
        records = List.copyOf(records);
        rejected = List.copyOf(rejected);
        fields = List.copyOf(fields);
    }

    /** A format 1.0 vector: no fields. */
    public TestVector(String name, boolean dataset, int alignment, List<String> classes, long targetShardBytes,
                      int expectedShards, List<VectorRecord> records, List<DatasetManifest.Rejected> rejected) {
        this(name, dataset, alignment, classes, targetShardBytes, expectedShards, records, rejected, List.of());
    }
}
