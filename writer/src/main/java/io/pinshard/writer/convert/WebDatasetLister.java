package io.pinshard.writer.convert;

import com.fasterxml.jackson.databind.JsonNode;
import io.pinshard.format.Json;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarFile;

/**
 * Lists the samples of WebDataset shards (uncompressed {@code .tar} files, read with commons-compress).
 * Members are grouped into samples by key (the member path up to the first dot of its file name);
 * the image is the sample's jpg, jpeg, png or webp member (first of these, then any other image
 * extension), the label comes from a {@code .cls} member (text) or else the {@code label} field of a
 * {@code .json} member. Image bytes are not copied at listing time: an input is a byte range of the tar.
 * A sample without an image member is a rejected input. Nothing replaces anything silently: a member
 * whose name repeats an earlier member of the same tar, and every image member of a sample beyond
 * the one used, is a rejected input naming the member kept; a repeated label member is ignored (the
 * first one counts). With field specs ({@code --fields txt:caption,json:meta}) each sample's member of each
 * named extension becomes that field's value ({@link FieldSource}: read and checked by the worker that converts
 * the sample's image); a sample without such a member stores the field empty.
 */
public final class WebDatasetLister {
    private static final List<String> PREFERRED = List.of("jpg", "jpeg", "png", "webp");
    private static final int MAX_LABEL_MEMBER_BYTES = 1 << 20;

    private WebDatasetLister() {
    }

    public static boolean isWebDataset(Path path) throws IOException {
        if (Files.isRegularFile(path)) {
            return path.getFileName().toString().endsWith(".tar");
        }
        return Files.isDirectory(path) && !tarFiles(path).isEmpty();
    }

    private static List<Path> tarFiles(Path dir) throws IOException {
        try (Stream<Path> children = Files.list(dir)) {
            return children.filter(p -> p.getFileName().toString().endsWith(".tar") && Files.isRegularFile(p))
                .sorted().toList();
        }
    }

    /** Lists a single tar, or every {@code *.tar} of a directory in name order. */
    public static InputListing list(Path path, boolean labelled) throws IOException {
        return list(path, labelled, List.of());
    }

    /** As {@link #list(Path, boolean)}, each sample also taking the members that {@code fields} name. */
    public static InputListing list(Path path, boolean labelled, List<FieldSpec> fields) throws IOException {
        Map<String, Integer> fieldOf = new java.util.HashMap<>();
        for (int f = 0; f < fields.size(); f++) {
            fieldOf.put(fields.get(f).source().toLowerCase(java.util.Locale.ROOT), f);
        }
        List<Path> tars = Files.isDirectory(path) ? tarFiles(path) : List.of(path);
        List<Sample> samples = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        long ignored = 0;
        for (Path tar : tars) {
            Map<String, Sample> byKey = new LinkedHashMap<>();
            java.util.Set<String> names = new java.util.HashSet<>();
            try (TarFile archive = new TarFile(tar)) {
                for (TarArchiveEntry entry : archive.getEntries()) {
                    if (!entry.isFile()) {
                        continue;
                    }
                    String name = entry.getName();
                    int slash = name.lastIndexOf('/');
                    int dot = name.indexOf('.', slash + 1);
                    if (dot < 0 || name.substring(slash + 1).startsWith(".")) {
                        ignored++;
                        continue;
                    }
                    String key = name.substring(0, dot);
                    String ext = name.substring(dot + 1).toLowerCase(java.util.Locale.ROOT);
                    Sample sample = byKey.computeIfAbsent(key, k -> new Sample(tar, k, fields.size()));
                    boolean repeated = !names.add(name);
                    Integer field = fieldOf.get(ext);
                    if (field != null && !repeated && sample.fields[field] == null) {
                        sample.fields[field] = FieldSource.member("member " + name, tar, entry.getDataOffset(),
                            entry.getSize());
                        if (ext.equals("cls") || ext.equals("json")) {
                            sample.labelSources.put(ext, readSmall(archive, entry));
                        }
                    } else if (field != null) {
                        continue; // a repeated field member: the first one counts, as for labels
                    } else if (ImageExtensions.IMAGE.contains(ext)) {
                        if (repeated) {
                            sample.rejectedImages.add(InputItem.unusable(tar.getFileName() + "/" + name,
                                "tar member name repeats an earlier member of " + tar.getFileName() + "; the first one is kept"));
                        } else {
                            sample.images.put(ext, entry);
                        }
                    } else if ((ext.equals("cls") || ext.equals("json")) && !repeated) {
                        sample.labelSources.put(ext, readSmall(archive, entry));
                    } else {
                        ignored++;
                    }
                }
            }
            samples.addAll(byKey.values());
        }
        for (Sample sample : samples) {
            sample.resolveLabel();
            labels.add(labelled ? sample.label : null);
        }
        LabelTable table = new LabelTable(labels);
        List<InputItem> items = new ArrayList<>(samples.size());
        for (Sample sample : samples) {
            sample.addItems(items, labelled, table);
        }
        InputListing listing = new InputListing(path.toString(), table.classes(), items, ignored);
        return fields.isEmpty() ? listing : listing.withFields(FieldSpec.schema(fields), items);
    }

    private static String readSmall(TarFile archive, TarArchiveEntry entry) throws IOException {
        if (entry.getSize() > MAX_LABEL_MEMBER_BYTES) {
            return null;
        }
        try (InputStream in = archive.getInputStream(entry)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static final class Sample {
        final Path tar;
        final String key;
        final Map<String, TarArchiveEntry> images = new LinkedHashMap<>();
        final Map<String, String> labelSources = new LinkedHashMap<>();
        final List<InputItem> rejectedImages = new ArrayList<>();
        final FieldSource[] fields;
        String label;
        String labelProblem;

        Sample(Path tar, String key, int fieldCount) {
            this.tar = tar;
            this.key = key;
            this.fields = new FieldSource[fieldCount];
        }

        void resolveLabel() {
            String cls = labelSources.get("cls");
            if (cls != null && !cls.isBlank()) {
                label = cls.trim();
                return;
            }
            String json = labelSources.get("json");
            if (json != null) {
                try {
                    JsonNode node = Json.MAPPER.readTree(json);
                    JsonNode value = node == null ? null : node.get("label");
                    if (value != null && (value.isTextual() || value.isIntegralNumber())) {
                        label = value.asText();
                        return;
                    }
                } catch (IOException e) {
                    labelProblem = "json member cannot be parsed: " + e.getMessage();
                    return;
                }
            }
            labelProblem = "sample has no .cls member and no \"label\" in a .json member (use --labels none for unlabeled data)";
        }

        /** Adds this sample's input, then a rejected input for every image member it does not use. */
        void addItems(List<InputItem> items, boolean labelled, LabelTable table) {
            TarArchiveEntry image = null;
            for (String ext : PREFERRED) {
                image = image != null ? image : images.get(ext);
            }
            if (image == null && !images.isEmpty()) {
                image = images.values().iterator().next();
            }
            items.add(toItem(image, labelled, table));
            for (TarArchiveEntry other : images.values()) {
                if (other != image) {
                    items.add(InputItem.unusable(tar.getFileName() + "/" + other.getName(), "second image for sample "
                        + key + " (a sample holds one image; " + image.getName() + " is used)"));
                }
            }
            items.addAll(rejectedImages);
        }

        private InputItem toItem(TarArchiveEntry image, boolean labelled, LabelTable table) {
            String sourceKey = tar.getFileName() + "/" + key;
            if (image == null) {
                return InputItem.unusable(sourceKey, "sample has no image member (jpg, jpeg, png, webp, ...)");
            }
            String imageKey = tar.getFileName() + "/" + image.getName();
            if (labelled && label == null) {
                return InputItem.unusable(imageKey, labelProblem);
            }
            if (image.isSparse() || image.getDataOffset() < 0) {
                return InputItem.unusable(imageKey, "tar member is sparse or has no data offset");
            }
            InputItem item = InputItem.slice(imageKey, labelled ? table.label(label) : -1, tar, image.getDataOffset(),
                image.getSize());
            return fields.length == 0 ? item : item.withFields(java.util.Arrays.asList(fields));
        }
    }
}
