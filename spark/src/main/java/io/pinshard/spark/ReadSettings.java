package io.pinshard.spark;

import java.io.Serializable;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A read's options: {@code path} (the dataset directory), {@code payload} = {@code none} (default: the index only),
 * {@code stored} (a binary column {@code payload}: the stored bytes, raw, an lz4 block or JPEG) or {@code pixels}
 * (a binary column {@code pixels}: decoded RGB uint8, height x width x channels, row-major), and {@code crc}
 * ({@code true} by default: payloads read are checked against their CRC32C).
 */
record ReadSettings(String path, Payload payload, boolean checkCrc) implements Serializable {
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
        return new ReadSettings(path, mode, Boolean.parseBoolean(crc));
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
        return switch (payload) {
            case NONE -> schema;
            case STORED -> schema.add(new StructField("payload", DataTypes.BinaryType, false, Metadata.empty()));
            case PIXELS -> schema.add(new StructField("pixels", DataTypes.BinaryType, false, Metadata.empty()));
        };
    }
}
