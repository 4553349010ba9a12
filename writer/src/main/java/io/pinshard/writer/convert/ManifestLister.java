package io.pinshard.writer.convert;

import com.fasterxml.jackson.databind.JsonNode;
import io.pinshard.format.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Lists inputs from a manifest of {@code path,label} rows: CSV (an optional {@code path,label}
 * header line, RFC 4180 quoting) or JSONL (one object per line with {@code path} and optional
 * {@code label}). Relative paths resolve against the manifest's folder and must stay inside it: a
 * relative path whose {@code ..} leads out of that folder is a rejected input unless
 * {@code allowOutside} (the user's {@code --allow-outside-paths}); an absolute path is the user's
 * explicit choice and is read where it points. The check is on the path's text (symbolic links are
 * followed). The manifest's row order is kept. A row that cannot be parsed, and a label that is not a
 * non-empty string or a whole number, becomes a rejected input naming the line, never a silent skip.
 */
public final class ManifestLister {
    private ManifestLister() {
    }

    public static boolean isManifest(Path path) {
        String ext = ImageExtensions.of(path.getFileName().toString());
        return Files.isRegularFile(path) && (ext.equals("csv") || ext.equals("jsonl") || ext.equals("ndjson"));
    }

    public static InputListing list(Path manifest, boolean labelled) throws IOException {
        return list(manifest, labelled, false);
    }

    public static InputListing list(Path manifest, boolean labelled, boolean allowOutside) throws IOException {
        boolean jsonl = !ImageExtensions.of(manifest.getFileName().toString()).equals("csv");
        Path base = manifest.toAbsolutePath().getParent();
        List<String> lines = Files.readAllLines(manifest, StandardCharsets.UTF_8);
        List<String[]> rows = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank() || (i == 0 && line.startsWith("\uFEFF") && line.substring(1).isBlank())) {
                continue;
            }
            if (i == 0) {
                line = line.replace("\uFEFF", "");
            }
            String[] row;
            try {
                row = jsonl ? jsonRow(line) : csvRow(line);
            } catch (IOException | RuntimeException e) {
                rows.add(new String[] {null, null, "line " + (i + 1) + " of " + manifest.getFileName()
                    + " cannot be parsed: " + e.getMessage()});
                continue;
            }
            if (!jsonl && i == 0 && row[0].toLowerCase(Locale.ROOT).equals("path")) {
                continue;
            }
            String label = labelled ? row[1] : null;
            rows.add(new String[] {row[0], label, null});
            labels.add(label);
        }
        LabelTable table = new LabelTable(labels);
        List<InputItem> items = new ArrayList<>(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            String[] row = rows.get(i);
            if (row[2] != null) {
                items.add(InputItem.unusable(manifest.getFileName() + "#" + i, row[2]));
            } else if (labelled && row[1] == null) {
                items.add(InputItem.unusable(row[0], "manifest row has no label (use --labels none for unlabeled inputs)"));
            } else {
                items.add(fileItem(row[0], table.label(row[1]), base, allowOutside));
            }
        }
        return new InputListing(manifest.toString(), table.classes(), items, 0);
    }

    private static InputItem fileItem(String path, int label, Path base, boolean allowOutside) {
        Path relative;
        try {
            relative = Path.of(path);
        } catch (java.nio.file.InvalidPathException e) {
            return InputItem.unusable(path, "not a valid path: " + e.getReason());
        }
        Path file = base.resolve(relative);
        if (!relative.isAbsolute() && !allowOutside && !file.normalize().startsWith(base.normalize())) {
            return InputItem.unusable(path, "relative path leads outside the manifest's folder " + base.normalize()
                + "; use an absolute path, or --allow-outside-paths to let relative paths leave it");
        }
        return InputItem.file(path, label, file);
    }

    private static String[] jsonRow(String line) throws IOException {
        JsonNode node = Json.MAPPER.readTree(line);
        if (node == null || !node.isObject() || !node.path("path").isTextual() || node.path("path").asText().isEmpty()) {
            throw new IOException("expected an object with a \"path\" string");
        }
        JsonNode label = node.get("label");
        if (label == null || label.isNull()) {
            return new String[] {node.get("path").asText(), null};
        }
        if (!(label.isTextual() && !label.asText().isEmpty()) && !label.isIntegralNumber()) {
            throw new IOException("\"label\" must be a non-empty string or a whole number, found "
                + (label.isTextual() ? "an empty string" : label.getNodeType().name().toLowerCase(Locale.ROOT) + " " + abbreviate(label.toString())));
        }
        return new String[] {node.get("path").asText(), label.asText()};
    }

    private static String abbreviate(String text) {
        return text.length() <= 40 ? text : text.substring(0, 40) + "...";
    }

    /** Splits one CSV line of one or two fields; double quotes quote a field, "" is a quote inside one. */
    static String[] csvRow(String line) throws IOException {
        List<String> fields = csvCells(line);
        if (fields.size() > 2 || fields.get(0).isEmpty()) {
            throw new IOException("expected path[,label], found " + fields.size() + " field(s)");
        }
        return new String[] {fields.get(0), fields.size() > 1 && !fields.get(1).isEmpty() ? fields.get(1) : null};
    }

    /** The cells of one CSV line (RFC 4180 quoting: double quotes quote a cell, "" is a quote inside one). */
    static List<String> csvCells(String line) throws IOException {
        List<String> fields = new ArrayList<>(2);
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    field.append(c);
                }
            } else if (c == '"' && field.isEmpty()) {
                quoted = true;
            } else if (c == ',') {
                fields.add(field.toString());
                field.setLength(0);
            } else if (c != '\r') {
                field.append(c);
            }
        }
        if (quoted) {
            throw new IOException("unterminated quote");
        }
        fields.add(field.toString());
        return fields;
    }
}
