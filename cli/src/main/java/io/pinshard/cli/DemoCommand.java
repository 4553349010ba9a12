package io.pinshard.cli;

import io.pinshard.baseline.inputs.ImageCollection;
import io.pinshard.baseline.inputs.SourceImage;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.DatasetWriteLock;
import io.pinshard.writer.convert.ConvertException;
import io.pinshard.writer.convert.ConvertOptions;
import io.pinshard.writer.convert.ConvertSummary;
import io.pinshard.writer.convert.Converter;
import io.pinshard.writer.convert.InputItem;
import io.pinshard.writer.convert.InputListing;
import io.pinshard.writer.convert.InputRecord;
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
 * converts it to jpeg shards with a progress bar, writes the shards' 320-px JPEGs out as files and converts
 * those to raw shards, then races four loaders with the same number of threads: JPEG files at full size (the
 * seed's "before"), the 320-px JPEG files (its "after", no shards), pinshard on the jpeg shards and on the raw
 * shards; it prints images/s, both speed-ups, data-wait and heap bytes per batch.
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
        description = "Where the datasets, the 320-px JPEG files and the preview sheet go (default: ~/.cache/pinshard/demo)."
            + " Its dataset/, dataset-jpeg/ and jpeg-files/ folders are replaced.")
    Path output;

    @Option(names = "--images", paramLabel = "N", defaultValue = "256",
        description = "Images to convert; the collection is repeated when it holds fewer (default: ${DEFAULT-VALUE}).")
    int images;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "32", description = "Batch size (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--crop", paramLabel = "PX", defaultValue = "224", description = "Crop side (default: ${DEFAULT-VALUE}).")
    int crop;

    @Option(names = "--workers", paramLabel = "N", description = "Threads of every loader in the race, and of the converter"
        + " (default: available processors).")
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

        Path jpegDataset = root.resolve("dataset-jpeg");
        Path jpegFiles = root.resolve("jpeg-files");
        List<Path> smallFiles;
        // Both datasets held from before the previous demo's files go until both are written: a second demo on
        // the same --output is refused instead of deleting this one's files (and the JPEG files between them).
        try (DatasetWriteLock rawLock = DatasetWriteLock.hold(dataset, "pinshard demo");
             DatasetWriteLock jpegLock = DatasetWriteLock.hold(jpegDataset, "pinshard demo")) {
            smallFiles = convertBoth(collection, images, rawLock, jpegLock, jpegFiles, threads, out, log);
        }

        DemoRace race = new DemoRace(batch, crop, seconds, gpuImagesPerSecond, log);
        List<Path> originals = new ArrayList<>();
        for (SourceImage image : collection.images().subList(0, Math.min(images, collection.images().size()))) {
            originals.add(image.file());
        }
        // The seed's "before" is full-size JPEG files: the JPEGs among the originals (all of them when none is).
        List<Path> jpegOriginals = originals.stream()
            .filter(f -> f.toString().toLowerCase(Locale.ROOT).matches(".*\\.jpe?g")).toList();
        String beforeName = jpegOriginals.isEmpty() ? "before: full-size source files"
            : jpegOriginals.size() == originals.size() ? "before: full-size JPEG files"
            : "before: full-size JPEG files (the " + jpegOriginals.size() + " of " + originals.size() + " that are JPEG)";
        DemoRace.Figures before = race.files(beforeName, jpegOriginals.isEmpty() ? originals : jpegOriginals, threads);
        DemoRace.Figures after = race.files("after: 320-px JPEG files", smallFiles, threads);
        DemoRace.Figures jpegShards = race.pinshard(jpegDataset, threads, "jpeg");
        DemoRace.Figures rawShards = race.pinshard(dataset, threads, "raw");
        race.print(out, threads, before, after, jpegShards, rawShards);

        CommandLine commands = PinshardCommand.newCommandLine();
        java.io.StringWriter previewOut = new java.io.StringWriter();
        commands.setOut(new PrintWriter(previewOut, true)).setErr(spec.commandLine().getErr());
        int preview = commands.getSubcommands().containsKey("preview")
            ? commands.execute("preview", dataset.toString(), "--out", sheet.toString()) : -1;
        out.printf("  dataset    %s   (try: pinshard inspect %s; pinshard verify %s)%n", dataset, dataset, dataset);
        out.printf("  preview    %s%n", preview == 0 ? previewOut.toString().lines().findFirst().orElse("").replaceFirst("^wrote ", "")
            : preview < 0 ? "not written (this build has no preview command)"
            : "not written (pinshard preview failed with exit " + preview + ")");
        out.flush();
        return 0;
    }

    /** The demo's conversions into the held datasets: jpeg shards, their payloads as files, raw shards of those. */
    private List<Path> convertBoth(ImageCollection collection, int images, DatasetWriteLock rawLock,
                                   DatasetWriteLock jpegLock, Path jpegFiles, int threads, PrintWriter out, PrintStream log)
        throws IOException, ConvertException {
        Path dataset = rawLock.directory();
        Path jpegDataset = jpegLock.directory();
        removePreviousDemoDataset(dataset);
        removePreviousDemoDataset(jpegDataset);
        removePreviousJpegFiles(jpegFiles);
        List<InputItem> items = new ArrayList<>(images);
        for (int i = 0; i < images; i++) {
            SourceImage image = collection.images().get(i % collection.images().size());
            String key = collection.root().relativize(image.file()) + (i < collection.images().size() ? "" : "#" + i);
            items.add(InputItem.file(key, image.label(), image.file()));
        }
        ConvertSummary summary = convert(new InputListing(collection.root().toString(), collection.classes(), items, 0),
            jpegLock, OutputCodec.parse("jpeg"), threads, log);
        out.printf(Locale.ROOT, "  converted  %d images (%d rejected), %s -> %s of jpeg shards (%.1fx smaller) in %.1f s"
                + " with %d workers%n", summary.written(), summary.rejected(), Units.bytes(summary.inputBytes()),
            Units.bytes(summary.outputBytes()), summary.outputBytes() == 0 ? 0.0 : (double) summary.inputBytes() / summary.outputBytes(),
            summary.wallNanos() / 1e9, threads);
        List<Path> smallFiles = DemoJpegFiles.export(jpegDataset, jpegFiles);
        List<InputItem> small = new ArrayList<>(smallFiles.size());
        for (Path file : smallFiles) {
            small.add(InputItem.file(jpegFiles.relativize(file).toString(), DemoJpegFiles.label(jpegFiles, file), file));
        }
        ConvertSummary raw = convert(new InputListing(jpegFiles.toString(), DemoJpegFiles.classes(jpegDataset), small, 0),
            rawLock, OutputCodec.parse("raw"), threads, log);
        out.printf(Locale.ROOT, "  wrote      %d 320-px JPEG files (the jpeg shards' own payloads) to %s, and raw shards of"
            + " them (%s) in %.1f s%n", smallFiles.size(), jpegFiles, Units.bytes(raw.outputBytes()), raw.wallNanos() / 1e9);
        out.flush();
        return smallFiles;
    }

    private ConvertSummary convert(InputListing listing, DatasetWriteLock dataset, OutputCodec codec, int threads, PrintStream log)
        throws IOException, ConvertException {
        ConvertOptions options = ConvertOptions.defaults().withCodec(codec).withWorkers(threads);
        ConvertProgressReporter.Mode mode = progress != null ? progress : ConvertProgressReporter.defaultMode();
        try (ConvertProgressReporter reporter = new ConvertProgressReporter(mode, log, Duration.ofSeconds(5))) {
            return new Converter(options, reporter).run(listing, null, dataset);
        }
    }

    /** Deletes an earlier demo's 320-px JPEG files, refusing to touch a folder that holds anything else. */
    static void removePreviousJpegFiles(Path folder) throws IOException {
        if (!Files.isDirectory(folder)) {
            return;
        }
        List<Path> files;
        try (Stream<Path> walk = Files.walk(folder)) {
            files = walk.sorted(java.util.Comparator.reverseOrder()).toList();
        }
        for (Path file : files) {
            if (!Files.isDirectory(file) && !file.getFileName().toString().endsWith(".jpg")) {
                throw new IllegalArgumentException(folder + " holds " + folder.relativize(file)
                    + ", which the demo's JPEG files do not: choose another --output");
            }
        }
        for (Path file : files) {
            Files.delete(file);
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
                || name.endsWith(".tmp") || name.equals("convert-journal.json") || name.equals(InputRecord.FILE_NAME)
                || name.startsWith(".");
            if (!ours || Files.isDirectory(file)) {
                throw new IllegalArgumentException(dataset + " holds " + name
                    + ", which a pinshard dataset does not: choose another --output");
            }
        }
        for (Path file : files) {
            if (!file.getFileName().toString().equals(DatasetWriteLock.FILE_NAME)) { // ours, held meanwhile
                Files.delete(file);
            }
        }
    }
}
