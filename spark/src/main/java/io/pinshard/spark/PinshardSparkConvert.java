package io.pinshard.spark;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.writer.convert.InputItem;
import io.pinshard.writer.convert.InputListing;
import io.pinshard.writer.convert.ManifestLister;
import io.pinshard.writer.convert.WebDatasetLister;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.DataFrameWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code pinshard convert} as a Spark job, for {@code spark-submit --class io.pinshard.spark.PinshardSparkConvert}:
 * <pre>
 * INPUT -o DIR [--input-kind auto|folder|manifest|webdataset] [--labels auto|none] [--allow-outside-paths]
 *   [--shorter-side PX] [--upscale] [--max-aspect RATIO] [--aspect-policy crop|reject] [--reducing-gap GAP]
 *   [--max-pixels N] [--codec raw|lz4|jpeg|yuv420|auto] [--jpeg-quality Q] [--shard-size SIZE]
 *   [--partitions N] [--overwrite] [--strict]
 * </pre>
 * convert's options, names and defaults. A folder INPUT may be any file system Spark reads (hdfs://, s3a://, a
 * mounted volume): it is read with {@code binaryFile}, the first-level folders are the classes. A manifest (.csv,
 * .jsonl) or WebDataset tars are listed on the driver by convert's own listers, so they (and the images a manifest
 * names) must be on a file system mounted at the same path on the driver and every executor. DIR is written through
 * the local file system API and must be such a shared mount too (the reader memory-maps shards anyway).
 * {@code --partitions} (default 4 per core of the cluster) splits the input into tasks. Exit 0 done (rejections
 * listed in the manifest), 1 rejections under --strict, 2 usage error.
 */
public final class PinshardSparkConvert {
    private static final List<String> FLAGS = List.of("--upscale", "--allow-outside-paths", "--overwrite", "--strict");

    private PinshardSparkConvert() {
    }

    public static void main(String[] args) throws IOException {
        int status;
        try {
            status = run(args, System.out);
        } catch (IllegalArgumentException e) {
            System.err.println("pinshard-spark convert: " + e.getMessage());
            status = 2;
        }
        if (status != 0) {
            System.exit(status);
        }
    }

    /** Runs the conversion in the active (or a new) Spark session; returns the exit status. */
    static int run(String[] args, PrintStream out) throws IOException {
        Map<String, String> values = new LinkedHashMap<>();
        List<String> flags = new ArrayList<>();
        String input = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (FLAGS.contains(arg)) {
                flags.add(arg);
            } else if (arg.startsWith("-")) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option " + arg + " needs a value");
                }
                values.put(arg.equals("-o") ? "--output" : arg, args[++i]);
            } else if (input == null) {
                input = arg;
            } else {
                throw new IllegalArgumentException("more than one INPUT: " + input + " and " + arg);
            }
        }
        String output = values.remove("--output");
        if (input == null || output == null) {
            throw new IllegalArgumentException("usage: PinshardSparkConvert INPUT -o DIR [convert's options]");
        }
        Map<String, String> options = new LinkedHashMap<>();
        for (String name : SparkConvertOptions.NAMES) {
            String value = values.remove(SparkConvertOptions.flag(name));
            if (value != null) {
                options.put(name, value);
            }
        }
        if (flags.contains("--upscale")) {
            options.put("upscale", "true");
        }
        String kind = values.remove("--input-kind");
        String labels = values.getOrDefault("--labels", "auto");
        values.remove("--labels");
        String partitionsText = values.remove("--partitions");
        if (!values.isEmpty()) {
            throw new IllegalArgumentException("unknown option(s) " + values.keySet());
        }
        if (!labels.equals("auto") && !labels.equals("none")) {
            throw new IllegalArgumentException("--labels must be auto or none: " + labels);
        }
        boolean labelled = labels.equals("auto");
        SparkConvertOptions.parse(options); // convert's checks and messages, before Spark starts any work

        long start = System.nanoTime();
        SparkSession spark = SparkSession.builder().appName("pinshard convert").getOrCreate();
        int partitions = partitionsText != null ? Integer.parseInt(partitionsText)
            : 4 * spark.sparkContext().defaultParallelism();
        Path local = LocalFiles.of(input);
        String resolved = kind == null || kind.equals("auto")
            ? local != null && ManifestLister.isManifest(local) ? "manifest"
            : local != null && Files.exists(local) && WebDatasetLister.isWebDataset(local) ? "webdataset" : "folder"
            : kind;
        Dataset<Row> rows;
        switch (resolved) {
            case "folder" -> {
                // Spark packs files into partitions of about totalBytes / minPartitionNum: this many tasks.
                spark.conf().set("spark.sql.files.minPartitionNum", String.valueOf(partitions));
                // A local folder's files are read by the tasks themselves, as convert reads them (without content the
                // scan opens no file); another file system's through binaryFile's content.
                rows = spark.read().format("binaryFile").option("recursiveFileLookup", "true").load(input)
                    .select("path", local != null ? "length" : "content");
                options.put("root", input);
                options.put("labels", labelled ? "folder" : "none");
            }
            case "manifest", "webdataset" -> {
                if (local == null) {
                    throw new IllegalArgumentException(resolved + " input must be on a file system mounted on the driver"
                        + " and every executor (a local path): " + input);
                }
                InputListing listing = resolved.equals("manifest")
                    ? ManifestLister.list(local, labelled, flags.contains("--allow-outside-paths"))
                    : WebDatasetLister.list(local, labelled);
                rows = listed(spark, listing).repartition(partitions);
                options.put("classes", Json.MAPPER.writeValueAsString(listing.classes()));
                options.put("labels", "column");
            }
            default -> throw new IllegalArgumentException("--input-kind must be auto, folder, manifest or webdataset: " + kind);
        }
        DataFrameWriter<Row> writer = rows.write().format(PinshardDataSource.SHORT_NAME)
            .mode(flags.contains("--overwrite") ? "overwrite" : "append").options(options);
        writer.save(output);
        DatasetManifest manifest = Json.readManifest(Path.of(output));
        Map<?, ?> meta = (Map<?, ?>) manifest.metadata().get("spark");
        double seconds = (System.nanoTime() - start) / 1e9;
        out.printf(Locale.ROOT, "images in: %s   written: %d   rejected: %d   (%s non-image files ignored)%n",
            meta.get("inputs"), manifest.records(), manifest.rejected().size(), meta.get("ignored"));
        out.printf(Locale.ROOT, "%d shard(s) from %s task(s), %d bytes   wall time: %.2f s%n", manifest.shards().size(),
            meta.get("partitions"), manifest.bytes(), seconds);
        int shown = 0;
        for (DatasetManifest.Rejected rejected : manifest.rejected()) {
            if (shown++ == 20) {
                out.printf("  ... and %d more (see %s)%n", manifest.rejected().size() - 20, DatasetManifest.FILE_NAME);
                break;
            }
            out.printf("  rejected %s: %s%n", rejected.path(), rejected.reason());
        }
        out.println("wrote " + output);
        return flags.contains("--strict") && !manifest.rejected().isEmpty() ? 1 : 0;
    }

    /** Convert's listing as {@link WriteSettings.Layout#LISTED} rows: each task reads its inputs itself. */
    static Dataset<Row> listed(SparkSession spark, InputListing listing) {
        StructType schema = new StructType().add("key", DataTypes.StringType).add("label", DataTypes.IntegerType)
            .add("file", DataTypes.StringType).add("offset", DataTypes.LongType).add("length", DataTypes.LongType)
            .add("problem", DataTypes.StringType);
        List<Row> rows = new ArrayList<>(listing.items().size());
        for (InputItem item : listing.items()) {
            rows.add(RowFactory.create(item.key(), item.label(), item.file() == null ? null : item.file().toAbsolutePath().toString(),
                item.offset(), item.length(), item.problem()));
        }
        return spark.createDataFrame(rows, schema);
    }

}
