package io.pinshard.cli;

import io.pinshard.format.Codec;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.IndexEntryDescriptor;
import io.pinshard.format.Json;
import io.pinshard.format.Printable;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code pinshard inspect DIR [--json]}: what a dataset holds. */
@Command(name = "inspect", mixinStandardHelpOptions = true,
    description = "Summarise a dataset: records, shards, classes with counts, codecs, bytes, image sizes.")
final class InspectCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DATASET", description = "Dataset directory (holds manifest.json), or "
        + "s3://bucket/prefix (streamed through the node's shard cache: see --cache-dir, --cache-limit).")
    String directory;

    @CommandLine.Mixin
    DatasetLocationMixin location = new DatasetLocationMixin();

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        Map<String, Object> summary;
        try (Dataset dataset = location.open(directory)) {
            summary = summarise(dataset);
        }
        if (json) {
            out.print(new String(Json.pretty(summary), java.nio.charset.StandardCharsets.UTF_8));
        } else {
            printText(out, summary);
        }
        out.flush();
        return 0;
    }

    static Map<String, Object> summarise(Dataset dataset) {
        DatasetManifest manifest = dataset.manifest();
        long[] perClass = new long[manifest.classes().size()];
        long unlabelled = 0;
        long otherLabels = 0;
        EnumMap<Codec, Long> codecs = new EnumMap<>(Codec.class);
        long payloadBytes = 0;
        int minHeight = Integer.MAX_VALUE, maxHeight = 0, minWidth = Integer.MAX_VALUE, maxWidth = 0;
        RecordView view = new RecordView();
        for (long i = 0; i < dataset.size(); i++) {
            dataset.record(i, view);
            int label = view.label();
            if (label >= 0 && label < perClass.length) {
                perClass[label]++;
            } else if (label == IndexEntryDescriptor.NO_LABEL) {
                unlabelled++;
            } else {
                // Dataset.open refuses labels outside the class list; only a class-less dataset gets here.
                otherLabels++;
            }
            codecs.merge(view.codec(), 1L, Long::sum);
            payloadBytes += view.payloadLength();
            minHeight = Math.min(minHeight, view.height());
            maxHeight = Math.max(maxHeight, view.height());
            minWidth = Math.min(minWidth, view.width());
            maxWidth = Math.max(maxWidth, view.width());
        }
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("dataset", dataset.location());
        summary.put("formatVersion", manifest.formatVersion());
        summary.put("records", dataset.size());
        summary.put("bytes", manifest.bytes());
        summary.put("payloadBytes", payloadBytes);
        List<Map<String, Object>> shards = new ArrayList<>();
        for (DatasetManifest.ShardEntry shard : manifest.shards()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("file", shard.file());
            entry.put("records", shard.records());
            entry.put("bytes", shard.bytes());
            entry.put("crc32c", shard.crc32c());
            shards.add(entry);
        }
        summary.put("shards", shards);
        List<Map<String, Object>> classes = new ArrayList<>();
        for (int c = 0; c < perClass.length; c++) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("label", c);
            entry.put("name", manifest.classes().get(c));
            entry.put("records", perClass[c]);
            classes.add(entry);
        }
        summary.put("classes", classes);
        if (!dataset.fields().isEmpty()) { // format 1.1 only: a 1.0 dataset's summary is as it was
            summary.put("fields", dataset.fields());
        }
        summary.put("unlabelled", unlabelled);
        if (otherLabels > 0) {
            summary.put("labelsWithoutClassName", otherLabels);
        }
        Map<String, Long> codecCounts = new LinkedHashMap<>();
        codecs.forEach((codec, count) -> codecCounts.put(codec.label(), count));
        summary.put("codecs", codecCounts);
        Map<String, Object> sizes = new LinkedHashMap<>();
        if (dataset.size() > 0) {
            sizes.put("minHeight", minHeight);
            sizes.put("maxHeight", maxHeight);
            sizes.put("minWidth", minWidth);
            sizes.put("maxWidth", maxWidth);
        }
        summary.put("imageSize", sizes);
        summary.put("rejected", manifest.rejected() == null ? 0 : manifest.rejected().size());
        return summary;
    }

    /** Names from the manifest, escaped: they may hold terminal escape sequences. */
    private static String text(Object value) {
        return Printable.escape(String.valueOf(value));
    }

    @SuppressWarnings("unchecked")
    private static void printText(PrintWriter out, Map<String, Object> s) {
        out.printf("dataset      %s (format %s)%n", text(s.get("dataset")), text(s.get("formatVersion")));
        out.printf("records      %,d in %d shard(s), %s (%s of payload)%n", (Long) s.get("records"),
            ((List<?>) s.get("shards")).size(), Units.bytes((Long) s.get("bytes")), Units.bytes((Long) s.get("payloadBytes")));
        out.printf("codecs       %s%n", s.get("codecs"));
        Map<String, Object> sizes = (Map<String, Object>) s.get("imageSize");
        if (!sizes.isEmpty()) {
            out.printf("image size   height %s..%s, width %s..%s%n", sizes.get("minHeight"), sizes.get("maxHeight"),
                sizes.get("minWidth"), sizes.get("maxWidth"));
        }
        List<Map<String, Object>> classes = (List<Map<String, Object>>) s.get("classes");
        out.printf("classes      %d%s%n", classes.size(), (Long) s.get("unlabelled") > 0
            ? " (+" + s.get("unlabelled") + " unlabelled records)" : "");
        for (Map<String, Object> c : classes) {
            out.printf("  %4s  %-30s %,d%n", c.get("label"), text(c.get("name")), (Long) c.get("records"));
        }
        if (s.containsKey("fields")) {
            out.printf("fields       %s%n", text(String.join(", ", ((List<FieldSchema>) s.get("fields")).stream()
                .map(FieldSchema::describe).toList())));
        }
        if (s.containsKey("labelsWithoutClassName")) {
            out.printf("labels       %,d record(s) carry a label but the dataset lists no class names%n",
                (Long) s.get("labelsWithoutClassName"));
        }
        out.printf("shards%n");
        for (Map<String, Object> shard : (List<Map<String, Object>>) s.get("shards")) {
            out.printf("  %-24s %,10d records  %10s  crc32c %s%n", text(shard.get("file")), (Long) shard.get("records"),
                Units.bytes((Long) shard.get("bytes")), shard.get("crc32c"));
        }
        if ((Integer) s.get("rejected") > 0) {
            out.printf("rejected     %d input(s) listed in manifest.json%n", (Integer) s.get("rejected"));
        }
    }
}
