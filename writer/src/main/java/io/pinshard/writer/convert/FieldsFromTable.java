package io.pinshard.writer.convert;

import com.fasterxml.jackson.databind.JsonNode;
import io.pinshard.format.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Field values beside a folder of images or a manifest ({@code --fields-from FILE.jsonl|.csv}): one row per image,
 * keyed by its {@code path} as the listing keys it (relative to the input folder, or as the manifest writes it), the
 * other columns the fields {@link FieldSpec}s name. JSONL: one object per line, a field's value any JSON value
 * (converted by {@link FieldDecoder}); CSV: a header line naming the columns, RFC 4180 quoting. An image without a
 * row is a rejected input, a row that names no listed image is reported, a row that cannot be parsed fails the
 * command with its line: nothing is dropped silently.
 */
public final class FieldsFromTable {
    public static final String KEY_COLUMN = "path";

    private final Path file;
    private final Map<String, List<FieldSource>> rows;

    private FieldsFromTable(Path file, Map<String, List<FieldSource>> rows) {
        this.file = file;
        this.rows = rows;
    }

    /** The columns of {@code file} other than {@code path} and {@code label}: its first row's (the CSV header's). */
    public static List<String> columns(Path file) throws IOException {
        boolean csv = file.getFileName().toString().toLowerCase(java.util.Locale.ROOT).endsWith(".csv");
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            line = line.replace("\uFEFF", "");
            if (line.isBlank()) {
                continue;
            }
            List<String> names = new ArrayList<>();
            if (csv) {
                names.addAll(ManifestLister.csvCells(line));
            } else {
                Json.MAPPER.readTree(line).fieldNames().forEachRemaining(names::add);
            }
            names.removeAll(List.of(KEY_COLUMN, "label"));
            if (names.isEmpty()) {
                throw new IOException(file.getFileName() + " has no column besides path and label");
            }
            return names;
        }
        throw new IOException(file.getFileName() + " is empty");
    }

    /** Reads {@code file}'s rows for {@code specs} (their sources are column names). */
    public static FieldsFromTable read(Path file, List<FieldSpec> specs) throws IOException {
        boolean csv = file.getFileName().toString().toLowerCase(java.util.Locale.ROOT).endsWith(".csv");
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        Map<String, List<FieldSource>> rows = new HashMap<>();
        List<String> header = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = i == 0 ? lines.get(i).replace("\uFEFF", "") : lines.get(i);
            if (line.isBlank()) {
                continue;
            }
            String where = file.getFileName() + " line " + (i + 1);
            if (csv && header == null) {
                header = ManifestLister.csvCells(line);
                if (!header.contains(KEY_COLUMN)) {
                    throw new IOException(where + ": the header names no \"" + KEY_COLUMN + "\" column");
                }
                for (FieldSpec spec : specs) {
                    if (!header.contains(spec.source())) {
                        throw new IOException(where + ": the header names no column \"" + spec.source() + "\"");
                    }
                }
                continue;
            }
            String key;
            List<FieldSource> sources = new ArrayList<>(specs.size());
            if (csv) {
                List<String> cells = ManifestLister.csvCells(line);
                if (cells.size() != header.size()) {
                    throw new IOException(where + ": " + cells.size() + " cells, the header names " + header.size());
                }
                key = cells.get(header.indexOf(KEY_COLUMN));
                for (FieldSpec spec : specs) {
                    sources.add(FieldSource.cell("column " + spec.source() + " of " + where,
                        cells.get(header.indexOf(spec.source())).getBytes(StandardCharsets.UTF_8), false));
                }
            } else {
                JsonNode row = Json.MAPPER.readTree(line);
                if (row == null || !row.isObject() || !row.path(KEY_COLUMN).isTextual()) {
                    throw new IOException(where + ": expected an object with a \"" + KEY_COLUMN + "\" string");
                }
                key = row.get(KEY_COLUMN).asText();
                for (FieldSpec spec : specs) {
                    JsonNode value = row.get(spec.source());
                    sources.add(value == null || value.isNull() ? null : FieldSource.cell("key " + spec.source()
                        + " of " + where, Json.MAPPER.writeValueAsBytes(value), true));
                }
            }
            if (rows.put(key, sources) != null) {
                throw new IOException(where + ": path " + key + " has a row already");
            }
        }
        return new FieldsFromTable(file, rows);
    }

    /** {@code listing} with each image's fields from its row; an image without a row becomes a rejected input. */
    public InputListing apply(InputListing listing, List<FieldSpec> specs) {
        List<InputItem> items = new ArrayList<>(listing.items().size());
        for (InputItem item : listing.items()) {
            List<FieldSource> row = rows.get(item.key());
            if (item.problem() != null) {
                items.add(item);
            } else if (row == null) {
                items.add(InputItem.unusable(item.key(), "no row for it in " + file.getFileName() + " (--fields-from, keyed by \""
                    + KEY_COLUMN + "\")"));
            } else {
                items.add(item.withFields(row));
            }
        }
        return listing.withFields(FieldSpec.schema(specs), items);
    }

    /** Rows whose path names no image of {@code listing}: a likely typo, reported by the command. */
    public List<String> unmatched(InputListing listing) {
        java.util.Set<String> keys = new java.util.HashSet<>();
        listing.items().forEach(item -> keys.add(item.key()));
        return rows.keySet().stream().filter(key -> !keys.contains(key)).sorted().toList();
    }
}
