package io.pinshard.format;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Map;

/**
 * The dataset manifest, {@value #FILE_NAME}: the list of shards with their record counts, sizes and
 * whole-file CRC32C, the class names, totals, free-form metadata and the inputs that were rejected.
 * Written last and atomically by the dataset writer; a directory without it is not a dataset.
 */
@JsonPropertyOrder({"format", "formatVersion", "records", "bytes", "classes", "fields", "shards", "metadata", "rejected"})
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DatasetManifest(
    String format,
    String formatVersion,
    long records,
    long bytes,
    List<String> classes,
    List<FieldSchema> fields,
    List<ShardEntry> shards,
    Map<String, Object> metadata,
    List<Rejected> rejected) {

    public static final String FILE_NAME = "manifest.json";
    public static final String FORMAT = "pinshard-dataset";
    public static final String FORMAT_VERSION =
        ShardHeaderDescriptor.MAJOR_VERSION + "." + ShardHeaderDescriptor.MINOR_VERSION;
    /** The version of a dataset whose records have fields (SPEC.md section 17). */
    public static final String FIELDS_FORMAT_VERSION =
        ShardHeaderDescriptor.MAJOR_VERSION + "." + ShardHeaderDescriptor.FIELDS_MINOR_VERSION;

    /** A manifest without fields (format 1.0): {@code fields} null, absent from the JSON. */
    public DatasetManifest(String format, String formatVersion, long records, long bytes, List<String> classes,
                           List<ShardEntry> shards, Map<String, Object> metadata, List<Rejected> rejected) {
        this(format, formatVersion, records, bytes, classes, null, shards, metadata, rejected);
    }

    /** The field schema, empty when the dataset has none ({@code fields} absent). */
    public List<FieldSchema> fieldSchema() {
        return fields == null ? List.of() : fields;
    }

    /** The version string a dataset with this schema carries: 1.1 with fields, else 1.0. */
    public static String formatVersionFor(List<FieldSchema> fields) {
        return fields.isEmpty() ? FORMAT_VERSION : FIELDS_FORMAT_VERSION;
    }

    /** One shard file of the dataset. */
    @JsonPropertyOrder({"file", "records", "bytes", "crc32c"})
    public record ShardEntry(String file, long records, long bytes, String crc32c) {
    }

    /** An input that was not converted, and why; nothing is dropped silently. */
    @JsonPropertyOrder({"path", "reason"})
    public record Rejected(String path, String reason) {
    }
}
