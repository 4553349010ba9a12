package io.pinshard.cli;

import io.pinshard.baseline.inputs.ImageCollection;
import io.pinshard.baseline.inputs.SourceImage;
import io.pinshard.format.DatasetManifest;
import io.pinshard.writer.convert.ConvertException;
import io.pinshard.writer.convert.ConvertOptions;
import io.pinshard.writer.convert.ConvertSummary;
import io.pinshard.writer.convert.Converter;
import io.pinshard.writer.convert.InputItem;
import io.pinshard.writer.convert.InputListing;
import io.pinshard.writer.convert.OutputCodec;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code pinshard demo}: the whole story in one command. Takes an image folder (by default real
 * photographs fetched into a cache, else generated 3000x2000 images that say they are synthetic),
 * converts it with a progress bar, then runs the naive loader (per sample: read the original file,
 * decode it whole with javax.imageio, random-resized-crop) and pinshard's loader side by side and prints
 * images/s, speed-up, data-wait and heap bytes per batch.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Convert an image collection and race the naive loader against pinshard's.",
        "With no options: real photographs from ~/.cache/pinshard/photos (fetched when possible), else generated "
            + "3000x2000 images, clearly marked synthetic."})
final class DemoCommand implements Callable<Integer> {
    @Option(names = "--input", paramLabel = "DIR",
        description = "Your image folder (ImageFolder layout: first-level folders are classes). Default: real photos or generated images.")
    Path input;

    @Option(names = "--output", paramLabel = "DIR",
        description = "Where the dataset and preview sheet go (default: ~/.cache/pinshard/demo). Its dataset/ folder is replaced.")
    Path output;

    @Option(names = "--images", paramLabel = "N", defaultValue = "256",
        description = "Images to convert; the collection is repeated when it holds fewer (default: ${DEFAULT-VALUE}).")
    int images;

    @Option(names = "--codec", paramLabel = "CODEC", defaultValue = "raw", description = "raw, lz4 or jpeg (default: ${DEFAULT-VALUE}).")
    String codec;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "32", description = "Batch size (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--crop", paramLabel = "PX", defaultValue = "224", description = "Crop side (default: ${DEFAULT-VALUE}).")
    int crop;

    @Option(names = "--workers", paramLabel = "N", description = "Loader and converter threads (default: available processors).")
    Integer workers;

    @Option(names = "--seconds", paramLabel = "S", defaultValue = "8",
        description = "Seconds each loader is measured (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Option(names = "--gpu-images-per-s", paramLabel = "RATE", defaultValue = "1000",
        description = "Simulated training speed for the data-wait figure: each step takes batch/RATE seconds (default: ${DEFAULT-VALUE}).")
    double gpuImagesPerSecond;

    @Option(names = "--progress", paramLabel = "MODE", description = "bar, log or none (default: bar on a terminal, else log lines).")
    ConvertProgressReporter.Mode progress;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException, ConvertException {
        PrintWriter out = spec.commandLine().getOut();
        if (images < 1 || batch < 1 || crop < 1 || seconds <= 0 || gpuImagesPerSecond <= 0) {
            throw new IllegalArgumentException("--images, --batch, --crop, --seconds and --gpu-images-per-s must be positive");
        }
        int threads = workers != null ? workers : Runtime.getRuntime().availableProcessors();
        Path root = output != null ? output : ImageCollection.defaultCacheRoot().resolve("demo");
        Path dataset = root.resolve("dataset");
        Path sheet = root.resolve("preview.png");
        Files.createDirectories(root);

        PrintStream log = System.err;
        ImageCollection collection = input != null
            ? ImageCollection.scan(input, false, "your images in " + input)
            : ImageCollection.realOrSynthetic(ImageCollection.defaultCacheRoot().resolve("synthetic-images"),
                Math.min(images, 48), log);
        if (collection.images().isEmpty()) {
            throw new IllegalArgumentException("no images (jpg, png, webp, bmp, tiff) under " + collection.root());
        }
        out.printf(Locale.ROOT, "pinshard demo%n  images     %d from %s%s%n", images, collection.description(),
            collection.images().size() < images ? " (" + collection.images().size() + " distinct, repeated)" : "");
        if (collection.synthetic()) {
            out.println("  NOTE       these images are SYNTHETIC (generated); figures on real photos will differ");
        }
        out.flush();

        ConvertSummary summary = convert(collection, dataset, threads, log);
        out.printf(Locale.ROOT, "  converted  %d images (%d rejected), %s -> %s (%.1fx smaller) in %.1f s with %d workers%n",
            summary.written(), summary.rejected(), Units.bytes(summary.inputBytes()), Units.bytes(summary.outputBytes()),
            summary.outputBytes() == 0 ? 0.0 : (double) summary.inputBytes() / summary.outputBytes(),
            summary.wallNanos() / 1e9, threads);
        out.flush();

        DemoRace race = new DemoRace(batch, crop, seconds, gpuImagesPerSecond, log);
        DemoRace.Figures naive = race.naive(collection.images().subList(0, Math.min(images, collection.images().size())));
        DemoRace.Figures pinshard = race.pinshard(dataset, threads, codec);
        race.print(out, naive, pinshard);

        CommandLine commands = PinshardCommand.newCommandLine();
        java.io.StringWriter previewOut = new java.io.StringWriter();
        commands.setOut(new PrintWriter(previewOut, true)).setErr(spec.commandLine().getErr());
        int preview = commands.getSubcommands().containsKey("preview")
            ? commands.execute("preview", dataset.toString(), "--out", sheet.toString()) : -1;
        out.printf("  dataset    %s   (try: pinshard inspect %s; pinshard verify %s)%n", dataset, dataset, dataset);
        out.printf("  preview    %s%n", preview == 0 ? previewOut.toString().trim().replaceFirst("^wrote ", "")
            : preview < 0 ? "not written (this build has no preview command)"
            : "not written (pinshard preview failed with exit " + preview + ")");
        out.flush();
        return 0;
    }

    private ConvertSummary convert(ImageCollection collection, Path dataset, int threads, PrintStream log)
        throws IOException, ConvertException {
        removePreviousDemoDataset(dataset);
        List<InputItem> items = new ArrayList<>(images);
        for (int i = 0; i < images; i++) {
            SourceImage image = collection.images().get(i % collection.images().size());
            String key = collection.root().relativize(image.file()) + (i < collection.images().size() ? "" : "#" + i);
            items.add(InputItem.file(key, image.label(), image.file()));
        }
        InputListing listing = new InputListing(collection.root().toString(), collection.classes(), items, 0);
        ConvertOptions options = ConvertOptions.defaults().withCodec(OutputCodec.parse(codec)).withWorkers(threads);
        ConvertProgressReporter.Mode mode = progress != null ? progress : ConvertProgressReporter.defaultMode();
        try (ConvertProgressReporter reporter = new ConvertProgressReporter(mode, log, Duration.ofSeconds(5))) {
            return new Converter(options, reporter).run(listing, null, dataset);
        }
    }

    /** Deletes an earlier demo's dataset, refusing to touch a folder that holds anything else. */
    static void removePreviousDemoDataset(Path dataset) throws IOException {
        if (!Files.isDirectory(dataset)) {
            return;
        }
        List<Path> files;
        try (Stream<Path> list = Files.list(dataset)) {
            files = list.toList();
        }
        for (Path file : files) {
            String name = file.getFileName().toString();
            boolean ours = name.equals(DatasetManifest.FILE_NAME) || name.endsWith(".pinshard")
                || name.endsWith(".tmp") || name.equals("convert-journal.json") || name.startsWith(".");
            if (!ours || Files.isDirectory(file)) {
                throw new IllegalArgumentException(dataset + " holds " + name
                    + ", which a pinshard dataset does not: choose another --output");
            }
        }
        for (Path file : files) {
            Files.delete(file);
        }
    }
}
