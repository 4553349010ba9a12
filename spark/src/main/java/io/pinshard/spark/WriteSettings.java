package io.pinshard.spark;

import com.fasterxml.jackson.core.type.TypeReference;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldType;
import io.pinshard.format.Json;
import io.pinshard.writer.convert.ConvertOptions;
import io.pinshard.writer.convert.FolderLister;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * What a write needs on every executor, resolved once on the driver from the options and the DataFrame's schema.
 *
 * <p>Row layouts, told apart by their columns:
 * <ul>
 *   <li>{@link Layout#FILES}: {@code path} (string) and {@code content} (binary), as {@code spark.read
 *       .format("binaryFile")} gives them. With option {@code root} (the folder read) the key is the path below it
 *       and, by default ({@code labels=folder}), the label is the folder name at {@code labelLevel} (1: the
 *       first-level folders are the classes, the ImageFolder convention of {@code pinshard convert}); the classes are
 *       those folders, sorted, unless option {@code classes} lists them. Files convert would skip (hidden, not an
 *       image extension) are skipped and counted as ignored.</li>
 *   <li>{@link Layout#PATHS}: {@code path} (string) and {@code length} (bigint) without {@code content}: binaryFile's
 *       rows with the content left out ({@code select("path", "length")}, so the scan reads no file), keys and labels
 *       as {@link Layout#FILES}. Each task reads its files itself, as convert reads them (straight into the decoder's
 *       buffer: no copy of a file's bytes on the heap), so the paths must be local ({@code file:}) on every
 *       executor: a shared mount, or local mode. {@link PinshardSparkConvert} makes these rows for a local
 *       folder.</li>
 *   <li>{@link Layout#PIXELS}: {@code height}, {@code width}, {@code channels} (int) and {@code bytes} (binary,
 *       row-major uint8, 1 to 4 channels, RGB order), with a key column ({@code keyColumn}, default {@code key}).</li>
 *   <li>{@link Layout#LISTED}: {@code key}, {@code file}, {@code offset}, {@code length} and {@code problem}, the
 *       inputs of convert's own listers (a CSV/JSONL manifest, WebDataset tars) read by each task from a shared
 *       file system; {@link PinshardSparkConvert} makes these rows.</li>
 * </ul>
 * A label column ({@code labelColumn}, default {@code label}; {@code labels=column}) holds label numbers (int or long,
 * null or -1 unlabeled) or class names (string, looked up in option {@code classes}). {@code labels=none} writes
 * every record unlabeled. The image options are convert's ({@link SparkConvertOptions}).
 *
 * <p>Option {@code fields} ({@code caption,meta:json,box:float32[4]}) stores those columns as record fields
 * (docs/fields.md), each {@code COLUMN[:TYPE]}: a string column is utf8 (or json), binary is bytes, an array of int,
 * bigint or float is int32, int64 or float32 (of any length, or exactly {@code [N]}); a null value is an empty
 * field (a fixed-length field then rejects the row). The read side gives them back as columns of the same names.
 */
final class WriteSettings implements Serializable {
    private static final long serialVersionUID = 1L;

    enum Layout {
        FILES, PATHS, PIXELS, LISTED;

        /** binaryFile's rows (with or without content): keyed by their path, labelled by its folders. */
        boolean isFiles() {
            return this == FILES || this == PATHS;
        }
    }

    enum Labels { FOLDER, COLUMN, NONE }

    enum LabelType { NUMBER, LONG_NUMBER, NAME }

    final String output;
    final Map<String, String> convertOptions;
    final Layout layout;
    final Labels labels;
    final List<String> classes;
    /** The root's qualified path with no trailing '/', or null: keys of {@link Layout#FILES} rows are below it. */
    final String root;
    final int labelLevel;
    final int[] ordinals;
    final int labelOrdinal;
    final LabelType labelType;
    final int keyOrdinal;
    /** Per field (option fields): its name, type label, fixed length (0: variable) and column. */
    final String[] fieldNames;
    final String[] fieldTypes;
    final int[] fieldLengths;
    final int[] fieldOrdinals;

    private WriteSettings(String output, Map<String, String> convertOptions, Layout layout, Labels labels,
                          List<String> classes, String root, int labelLevel, int[] ordinals, int labelOrdinal,
                          LabelType labelType, int keyOrdinal, List<FieldSchema> fields, int[] fieldOrdinals) {
        this.output = output;
        this.convertOptions = convertOptions;
        this.layout = layout;
        this.labels = labels;
        this.classes = classes;
        this.root = root;
        this.labelLevel = labelLevel;
        this.ordinals = ordinals;
        this.labelOrdinal = labelOrdinal;
        this.labelType = labelType;
        this.keyOrdinal = keyOrdinal;
        this.fieldNames = fields.stream().map(FieldSchema::name).toArray(String[]::new);
        this.fieldTypes = fields.stream().map(f -> f.type().label()).toArray(String[]::new);
        this.fieldLengths = fields.stream().mapToInt(FieldSchema::length).toArray();
        this.fieldOrdinals = fieldOrdinals;
    }

    /** The record fields the write stores (empty without option fields). */
    List<FieldSchema> fields() {
        List<FieldSchema> fields = new ArrayList<>();
        for (int f = 0; f < fieldNames.length; f++) {
            FieldType type = FieldType.fromLabel(fieldTypes[f]);
            fields.add(fieldLengths[f] == 0 ? FieldSchema.variable(fieldNames[f], type)
                : FieldSchema.fixed(fieldNames[f], type, fieldLengths[f]));
        }
        return fields;
    }

    /** The image options, parsed and checked as convert checks them. */
    ConvertOptions convert() {
        return SparkConvertOptions.parse(convertOptions);
    }

    /**
     * Resolves the settings (on the driver: it may list {@code root} for the classes).
     *
     * @throws IllegalArgumentException naming the option or column at fault
     */
    static WriteSettings resolve(Map<String, String> options, StructType schema, Configuration hadoop) {
        Map<String, String> lower = new java.util.HashMap<>();
        options.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), v));
        String output = lower.get("path");
        if (output == null || output.isBlank()) {
            throw new IllegalArgumentException("pinshard: no output directory: save(dir) or option path");
        }
        Map<String, String> convert = SparkConvertOptions.pick(options);
        SparkConvertOptions.parse(convert); // fail on the driver, with convert's messages, before any task runs
        Layout layout;
        int[] ordinals;
        if (has(schema, "path", DataTypes.StringType) && has(schema, "content", DataTypes.BinaryType)) {
            layout = Layout.FILES;
            ordinals = new int[] {schema.fieldIndex("path"), schema.fieldIndex("content")};
        } else if (has(schema, "path", DataTypes.StringType) && has(schema, "length", DataTypes.LongType)
            && !Arrays.asList(schema.fieldNames()).contains("content")) {
            layout = Layout.PATHS;
            ordinals = new int[] {schema.fieldIndex("path")};
        } else if (has(schema, "bytes", DataTypes.BinaryType) && has(schema, "height", DataTypes.IntegerType)
            && has(schema, "width", DataTypes.IntegerType) && has(schema, "channels", DataTypes.IntegerType)) {
            layout = Layout.PIXELS;
            ordinals = new int[] {schema.fieldIndex("height"), schema.fieldIndex("width"), schema.fieldIndex("channels"),
                schema.fieldIndex("bytes")};
        } else if (has(schema, "file", DataTypes.StringType) && has(schema, "offset", DataTypes.LongType)
            && has(schema, "length", DataTypes.LongType) && has(schema, "problem", DataTypes.StringType)) {
            layout = Layout.LISTED;
            ordinals = new int[] {schema.fieldIndex("file"), schema.fieldIndex("offset"), schema.fieldIndex("length"),
                schema.fieldIndex("problem")};
        } else {
            throw new IllegalArgumentException("pinshard: cannot write rows of " + schema.simpleString() + ": expected"
                + " path: string and content: binary (spark.read.format(\"binaryFile\")), path: string and length: bigint"
                + " (binaryFile's rows without content: local files each task reads), or height, width, channels: int"
                + " and bytes: binary (decoded pixels) with a key column");
        }
        String rootOption = lower.get("root");
        String root = null;
        if (rootOption != null) {
            if (!layout.isFiles()) {
                throw new IllegalArgumentException("pinshard: option root applies to binaryFile rows (path with content or length) only");
            }
            root = qualify(rootOption, hadoop);
        }
        String labelColumn = lower.getOrDefault("labelcolumn", "label");
        boolean hasLabelColumn = Arrays.asList(schema.fieldNames()).contains(labelColumn);
        String labelsOption = lower.get("labels");
        Labels labels;
        if (labelsOption == null) {
            labels = hasLabelColumn ? Labels.COLUMN : layout.isFiles() && root != null ? Labels.FOLDER : Labels.NONE;
        } else {
            try {
                labels = Labels.valueOf(labelsOption.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("pinshard: option labels must be folder, column or none: '" + labelsOption + "'");
            }
        }
        int labelLevel = 1;
        if (lower.containsKey("labellevel")) {
            try {
                labelLevel = Integer.parseInt(lower.get("labellevel").trim());
            } catch (NumberFormatException e) {
                labelLevel = 0;
            }
            if (labelLevel < 1) {
                throw new IllegalArgumentException("pinshard: option labelLevel must be an integer of at least 1: '"
                    + lower.get("labellevel") + "'");
            }
        }
        List<String> classes = lower.containsKey("classes") ? parseClasses(lower.get("classes")) : null;
        int labelOrdinal = -1;
        LabelType labelType = null;
        switch (labels) {
            case FOLDER -> {
                if (!layout.isFiles() || root == null) {
                    throw new IllegalArgumentException("pinshard: labels=folder needs binaryFile rows (path with content or length) and"
                        + " option root, the folder whose subfolders are the classes");
                }
                if (classes == null) {
                    classes = folderClasses(root, labelLevel, hadoop);
                }
            }
            case COLUMN -> {
                if (!hasLabelColumn) {
                    throw new IllegalArgumentException("pinshard: labels=column but there is no column '" + labelColumn
                        + "' (option labelColumn)");
                }
                labelOrdinal = schema.fieldIndex(labelColumn);
                DataType type = schema.fields()[labelOrdinal].dataType();
                if (type.equals(DataTypes.IntegerType)) {
                    labelType = LabelType.NUMBER;
                } else if (type.equals(DataTypes.LongType)) {
                    labelType = LabelType.LONG_NUMBER;
                } else if (type.equals(DataTypes.StringType)) {
                    labelType = LabelType.NAME;
                    if (classes == null) {
                        throw new IllegalArgumentException("pinshard: the label column '" + labelColumn + "' holds class"
                            + " names: list them, in label order, in option classes (a JSON array or comma-separated)");
                    }
                } else {
                    throw new IllegalArgumentException("pinshard: label column '" + labelColumn + "' is " + type.simpleString()
                        + ", not int, bigint or string");
                }
            }
            default -> {
            }
        }
        int keyOrdinal = -1;
        if (!layout.isFiles()) {
            String keyColumn = lower.getOrDefault("keycolumn", "key");
            if (!has(schema, keyColumn, DataTypes.StringType)) {
                throw new IllegalArgumentException("pinshard: rows need a string key column '" + keyColumn + "' (option keyColumn)");
            }
            keyOrdinal = schema.fieldIndex(keyColumn);
        }
        List<FieldSchema> fields = new ArrayList<>();
        List<Integer> fieldOrdinals = new ArrayList<>();
        if (lower.containsKey("fields")) {
            for (String spec : lower.get("fields").split(",", -1)) {
                fields.add(fieldOf(spec.trim(), schema));
                fieldOrdinals.add(schema.fieldIndex(spec.trim().split(":", 2)[0]));
            }
            FieldSchema.checkSchema(fields);
        }
        return new WriteSettings(output, convert, layout, labels, classes == null ? List.of() : List.copyOf(classes), root,
            labelLevel, ordinals, labelOrdinal, labelType, keyOrdinal, fields,
            fieldOrdinals.stream().mapToInt(Integer::intValue).toArray());
    }

    /** One entry of option fields, {@code COLUMN[:TYPE]}, checked against the column's Spark type. */
    static FieldSchema fieldOf(String spec, StructType schema) {
        String[] parts = spec.split(":", 2);
        String column = parts[0];
        if (!Arrays.asList(schema.fieldNames()).contains(column)) {
            throw new IllegalArgumentException("pinshard: option fields names a column '" + column + "' the rows do not"
                + " have (columns: " + String.join(", ", schema.fieldNames()) + ")");
        }
        DataType type = schema.fields()[schema.fieldIndex(column)].dataType();
        FieldType natural;
        if (type.equals(DataTypes.StringType)) {
            natural = FieldType.UTF8;
        } else if (type.equals(DataTypes.BinaryType)) {
            natural = FieldType.BYTES;
        } else if (type instanceof ArrayType array && array.elementType().equals(DataTypes.IntegerType)) {
            natural = FieldType.INT32;
        } else if (type instanceof ArrayType array && array.elementType().equals(DataTypes.LongType)) {
            natural = FieldType.INT64;
        } else if (type instanceof ArrayType array && array.elementType().equals(DataTypes.FloatType)) {
            natural = FieldType.FLOAT32;
        } else {
            throw new IllegalArgumentException("pinshard: column '" + column + "' is " + type.simpleString()
                + "; a field column is string, binary, or an array of int, bigint or float");
        }
        if (parts.length == 1) {
            return FieldSchema.variable(column, natural);
        }
        String text = parts[1].trim();
        int length = 0;
        int bracket = text.indexOf('[');
        if (bracket >= 0 && text.endsWith("]")) {
            try {
                length = Integer.parseInt(text.substring(bracket + 1, text.length() - 1));
            } catch (NumberFormatException e) {
                length = -1;
            }
            text = text.substring(0, bracket);
        }
        FieldType wanted = FieldType.fromLabel(text);
        boolean fits = wanted == natural || (natural == FieldType.UTF8 && wanted == FieldType.JSON);
        if (!fits || length < 0 || (length > 0 && !natural.isNumeric())) {
            throw new IllegalArgumentException("pinshard: option fields: '" + spec + "' does not fit column '" + column
                + "' of type " + type.simpleString());
        }
        return length == 0 ? FieldSchema.variable(column, wanted) : FieldSchema.fixed(column, wanted, length);
    }

    private static boolean has(StructType schema, String name, DataType type) {
        for (StructField field : schema.fields()) {
            if (field.name().equals(name)) {
                return field.dataType().equals(type);
            }
        }
        return false;
    }

    /** A JSON array of names, or names separated by commas. */
    static List<String> parseClasses(String text) {
        String trimmed = text.trim();
        if (trimmed.startsWith("[")) {
            try {
                return Json.MAPPER.readValue(trimmed, new TypeReference<List<String>>() { });
            } catch (IOException e) {
                throw new IllegalArgumentException("pinshard: option classes is not a JSON array of strings: " + e.getMessage());
            }
        }
        List<String> names = new ArrayList<>();
        for (String name : trimmed.split(",", -1)) {
            names.add(name.trim());
        }
        return names;
    }

    private static String qualify(String root, Configuration hadoop) {
        try {
            Path path = new Path(root);
            String qualified = path.getFileSystem(hadoop).makeQualified(path).toString();
            return qualified.endsWith("/") ? qualified.substring(0, qualified.length() - 1) : qualified;
        } catch (IOException e) {
            throw new UncheckedIOException("pinshard: cannot resolve option root " + root + ": " + e.getMessage(), e);
        }
    }

    /** The folder names {@code level} levels below {@code root}, sorted, as convert's FolderLister finds classes at level 1. */
    static List<String> folderClasses(String root, int level, Configuration hadoop) {
        try {
            Path rootPath = new Path(root);
            FileSystem fs = rootPath.getFileSystem(hadoop);
            List<Path> folders = List.of(rootPath);
            TreeSet<String> names = new TreeSet<>();
            for (int depth = 1; depth <= level; depth++) {
                List<Path> next = new ArrayList<>();
                for (Path folder : folders) {
                    for (FileStatus status : fs.listStatus(folder)) {
                        String name = status.getPath().getName();
                        if (status.isDirectory() && FolderLister.isClassFolder(name)) {
                            next.add(status.getPath());
                            if (depth == level) {
                                names.add(name);
                            }
                        }
                    }
                }
                folders = next;
            }
            return List.copyOf(names);
        } catch (IOException e) {
            throw new UncheckedIOException("pinshard: cannot list the class folders under " + root + ": " + e.getMessage(), e);
        }
    }
}
