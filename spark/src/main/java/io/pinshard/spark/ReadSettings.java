package io.pinshard.spark;

import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldType;
import io.pinshard.format.Json;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A read's options: {@code path} (the dataset directory), {@code payload} = {@code none} (default: the index only),
 * {@code stored} (a binary column {@code payload}: the stored bytes, raw, an lz4 block or JPEG) or {@code pixels}
 * (a binary column {@code pixels}: decoded RGB uint8, height x width x channels, row-major), and {@code crc}
 * ({@code true} by default: payloads read are checked against their CRC32C). A dataset with record fields
 * (docs/fields.md) adds one column per field after those, named as the field ({@code field_NAME} where that
 * name is already a column): utf8 and json as string, bytes as binary, int32/int64/float32 as arrays of int, bigint
 * or float.
 *
 * @param fieldNames the dataset's field names, in schema order (from its manifest)
 * @param fieldTypes their type labels
 */
record ReadSettings(String path, Payload payload, boolean checkCrc, List<String> fieldNames, List<String> fieldTypes)
    implements Serializable {
    enum Payload { NONE, STORED, PIXELS }

    static ReadSettings parse(Map<String, String> options) {
        String path = null;
        String payload = "none";
        String crc = "true";
        for (Map.Entry<String, String> option : options.entrySet()) {
            switch (option.getKey().toLowerCase(Locale.ROOT)) {
                case "path" -> path = option.getValue();
                case "payload" -> payload = option.getValue();
                case "crc" -> crc = option.getValue();
                default -> {
                }
            }
        }
        if (path == null || path.isBlank()) {
            throw new IllegalArgumentException("pinshard: no dataset directory: load(dir) or option path");
        }
        Payload mode;
        try {
            mode = Payload.valueOf(payload.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("pinshard: option payload must be none, stored or pixels: '" + payload + "'");
        }
        if (!crc.equalsIgnoreCase("true") && !crc.equalsIgnoreCase("false")) {
            throw new IllegalArgumentException("pinshard: option crc must be true or false: '" + crc + "'");
        }
        List<String> names = List.of();
        List<String> types = List.of();
        try {
            List<FieldSchema> fields = Json.readManifest(Path.of(path)).fieldSchema();
            names = fields.stream().map(FieldSchema::name).toList();
            types = fields.stream().map(f -> f.type().label()).toList();
        } catch (RuntimeException notADatasetYet) {
            // the scan reports it, naming the directory, as before fields existed
        }
        return new ReadSettings(path, mode, Boolean.parseBoolean(crc), names, types);
    }

    /** Columns before the fields: the index columns and, with a payload option, its binary column. */
    int fixedColumns() {
        return payload == Payload.NONE ? 11 : 12;
    }

    /** key, label, className, height, width, channels, codec, payloadLength, shard, recordInShard, record [, payload | pixels]. */
    StructType schema() {
        StructType schema = new StructType(new StructField[] {
            new StructField("key", DataTypes.StringType, false, Metadata.empty()),
            new StructField("label", DataTypes.IntegerType, false, Metadata.empty()),
            new StructField("className", DataTypes.StringType, true, Metadata.empty()),
            new StructField("height", DataTypes.IntegerType, false, Metadata.empty()),
            new StructField("width", DataTypes.IntegerType, false, Metadata.empty()),
            new StructField("channels", DataTypes.IntegerType, false, Metadata.empty()),
            new StructField("codec", DataTypes.StringType, false, Metadata.empty()),
            new StructField("payloadLength", DataTypes.IntegerType, false, Metadata.empty()),
            new StructField("shard", DataTypes.StringType, false, Metadata.empty()),
            new StructField("recordInShard", DataTypes.LongType, false, Metadata.empty()),
            new StructField("record", DataTypes.LongType, false, Metadata.empty())});
        schema = switch (payload) {
            case NONE -> schema;
            case STORED -> schema.add(new StructField("payload", DataTypes.BinaryType, false, Metadata.empty()));
            case PIXELS -> schema.add(new StructField("pixels", DataTypes.BinaryType, false, Metadata.empty()));
        };
        java.util.Set<String> taken = new java.util.HashSet<>(java.util.Arrays.asList(schema.fieldNames()));
        for (int f = 0; f < fieldNames.size(); f++) {
            String name = taken.contains(fieldNames.get(f)) ? "field_" + fieldNames.get(f) : fieldNames.get(f);
            DataType type = switch (FieldType.fromLabel(fieldTypes.get(f))) {
                case UTF8, JSON -> DataTypes.StringType;
                case BYTES -> DataTypes.BinaryType;
                case INT32 -> DataTypes.createArrayType(DataTypes.IntegerType, false);
                case INT64 -> DataTypes.createArrayType(DataTypes.LongType, false);
                case FLOAT32 -> DataTypes.createArrayType(DataTypes.FloatType, false);
            };
            schema = schema.add(new StructField(name, type, false, Metadata.empty()));
        }
        return schema;
    }
}
