package io.pinshard.writer.convert;

import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * One field a conversion stores, and where its values come from: {@code SOURCE:NAME[:TYPE]} on the command line
 * ({@code --fields txt:caption,json:meta,cls:tags:int32[]}). SOURCE is a WebDataset member extension
 * ({@code txt}, {@code json}, {@code cls}, {@code seg.png}, ...) or a column of a {@code --fields-from} table;
 * NAME defaults to SOURCE (dots become '_'); TYPE is {@code utf8}, {@code bytes}, {@code json}, or
 * {@code int32}/{@code int64}/{@code float32} with {@code [N]} for exactly N elements per record ({@code []} or
 * nothing: any count), and defaults by source (see {@link #forWebDataset}, {@link #forTable}).
 */
public record FieldSpec(String source, FieldSchema schema) {

    /** Default types for WebDataset members: {@code .txt} utf8, {@code .json} json, {@code .cls} int32[], else bytes. */
    public static FieldType webDatasetType(String extension) {
        return switch (extension) {
            case "txt", "text", "caption" -> FieldType.UTF8;
            case "json" -> FieldType.JSON;
            case "cls", "cls2" -> FieldType.INT32;
            default -> FieldType.BYTES;
        };
    }

    /** {@code --fields} for WebDataset input. */
    public static List<FieldSpec> forWebDataset(String text) {
        return parse(text, FieldSpec::webDatasetType);
    }

    /** {@code --fields} for a {@code --fields-from} table's columns: utf8 unless a type is given. */
    public static List<FieldSpec> forTable(String text) {
        return parse(text, column -> FieldType.UTF8);
    }

    /** The schema of {@code specs}, in order. */
    public static List<FieldSchema> schema(List<FieldSpec> specs) {
        return specs.stream().map(FieldSpec::schema).toList();
    }

    static List<FieldSpec> parse(String text, Function<String, FieldType> defaultType) {
        List<FieldSpec> specs = new ArrayList<>();
        for (String item : text.split(",")) {
            String[] parts = item.trim().split(":", -1);
            if (parts.length > 3 || parts[0].isEmpty()) {
                throw new IllegalArgumentException("--fields item '" + item + "' is not SOURCE[:NAME[:TYPE]]");
            }
            String source = parts[0];
            String name = parts.length > 1 && !parts[1].isEmpty() ? parts[1] : source.replace('.', '_');
            FieldSchema schema = parts.length > 2 ? type(name, parts[2])
                : FieldSchema.variable(name, defaultType.apply(source.toLowerCase(Locale.ROOT)));
            specs.add(new FieldSpec(source, schema));
        }
        try {
            FieldSchema.checkSchema(schema(specs));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("--fields " + text + ": " + (e instanceof io.pinshard.format.ShardFormatException
                f ? f.detail() : e.getMessage()), e);
        }
        return List.copyOf(specs);
    }

    /** {@code utf8}, {@code int32[4]}, {@code float32[]}, {@code int64}. */
    static FieldSchema type(String name, String text) {
        int bracket = text.indexOf('[');
        String typeName = bracket < 0 ? text : text.substring(0, bracket);
        FieldType type;
        try {
            type = FieldType.fromLabel(typeName);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--fields " + name + ": " + e.getMessage(), e);
        }
        if (bracket < 0 || text.equals(typeName + "[]")) {
            return FieldSchema.variable(name, type);
        }
        if (!text.endsWith("]") || !type.isNumeric()) {
            throw new IllegalArgumentException("--fields " + name + ": type '" + text + "' is not TYPE, TYPE[] or TYPE[N]"
                + " (N for int32, int64 and float32 only)");
        }
        try {
            return FieldSchema.fixed(name, type, Integer.parseInt(text.substring(bracket + 1, text.length() - 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--fields " + name + ": '" + text + "' has no element count N", e);
        }
    }
}
