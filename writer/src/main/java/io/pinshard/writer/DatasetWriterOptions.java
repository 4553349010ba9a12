package io.pinshard.writer;

import io.pinshard.format.FieldSchema;
import io.pinshard.format.ShardHeaderDescriptor;
import io.pinshard.format.ShardLayout;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How a dataset is written.
 *
 * @param targetShardBytes a new shard starts when the next record would pass this size
 * @param alignment        payload alignment, a power of two, at least 64
 * @param classes          class names, indexed by label
 * @param preprocessing    how images were prepared (shorter side, codec, ...), stored in every shard
 * @param manifestMetadata extra keys for the manifest's metadata object
 * @param writerVersion    the writer's name and version, stored in every shard
 * @param fields           the records' field schema (SPEC.md section 17); empty: images and labels only, format 1.0
 */
public record DatasetWriterOptions(long targetShardBytes, int alignment, List<String> classes,
                                   Map<String, Object> preprocessing, Map<String, Object> manifestMetadata,
                                   String writerVersion, List<FieldSchema> fields) {
    /** The default target shard size in MiB (convert's --shard-size default is this with "MiB"). */
    public static final int DEFAULT_TARGET_SHARD_MIB = 256;
    public static final long DEFAULT_TARGET_SHARD_BYTES = (long) DEFAULT_TARGET_SHARD_MIB << 20;

    public DatasetWriterOptions {
        if (targetShardBytes < ShardLayout.MIN_SHARD_BYTES || targetShardBytes > ShardLayout.MAX_SHARD_BYTES) {
            throw new IllegalArgumentException("target shard size must be between " + ShardLayout.MIN_SHARD_BYTES
                + " and " + ShardLayout.MAX_SHARD_BYTES + " bytes: " + targetShardBytes);
        }
        if (!ShardLayout.isValidAlignment(alignment)) {
            throw new IllegalArgumentException("alignment must be a power of two between "
                + ShardHeaderDescriptor.MIN_ALIGNMENT + " and " + ShardHeaderDescriptor.MAX_ALIGNMENT + ": " + alignment);
        }
        classes = List.copyOf(Objects.requireNonNull(classes, "classes"));
        preprocessing = Map.copyOf(Objects.requireNonNull(preprocessing, "preprocessing"));
        manifestMetadata = Map.copyOf(Objects.requireNonNull(manifestMetadata, "manifestMetadata"));
        Objects.requireNonNull(writerVersion, "writerVersion");
        fields = List.copyOf(Objects.requireNonNull(fields, "fields"));
        FieldSchema.checkSchema(fields);
    }

    /** Options without fields. */
    public DatasetWriterOptions(long targetShardBytes, int alignment, List<String> classes,
                                Map<String, Object> preprocessing, Map<String, Object> manifestMetadata,
                                String writerVersion) {
        this(targetShardBytes, alignment, classes, preprocessing, manifestMetadata, writerVersion, List.of());
    }

    public static DatasetWriterOptions defaults() {
        return new DatasetWriterOptions(DEFAULT_TARGET_SHARD_BYTES, ShardHeaderDescriptor.DEFAULT_ALIGNMENT, List.of(),
            Map.of(), Map.of(), WriterVersion.current(), List.of());
    }

    public DatasetWriterOptions withTargetShardBytes(long bytes) {
        return new DatasetWriterOptions(bytes, alignment, classes, preprocessing, manifestMetadata, writerVersion, fields);
    }

    public DatasetWriterOptions withAlignment(int value) {
        return new DatasetWriterOptions(targetShardBytes, value, classes, preprocessing, manifestMetadata, writerVersion, fields);
    }

    public DatasetWriterOptions withClasses(List<String> value) {
        return new DatasetWriterOptions(targetShardBytes, alignment, value, preprocessing, manifestMetadata, writerVersion, fields);
    }

    public DatasetWriterOptions withPreprocessing(Map<String, Object> value) {
        return new DatasetWriterOptions(targetShardBytes, alignment, classes, value, manifestMetadata, writerVersion, fields);
    }

    public DatasetWriterOptions withManifestMetadata(Map<String, Object> value) {
        return new DatasetWriterOptions(targetShardBytes, alignment, classes, preprocessing, value, writerVersion, fields);
    }

    public DatasetWriterOptions withFields(List<FieldSchema> value) {
        return new DatasetWriterOptions(targetShardBytes, alignment, classes, preprocessing, manifestMetadata,
            writerVersion, value);
    }

    public DatasetWriterOptions withWriterVersion(String value) {
        return new DatasetWriterOptions(targetShardBytes, alignment, classes, preprocessing, manifestMetadata, value, fields);
    }
}
