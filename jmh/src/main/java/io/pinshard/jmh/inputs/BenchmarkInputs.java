package io.pinshard.jmh.inputs;

import io.pinshard.baseline.inputs.ImageCollection;
import io.pinshard.baseline.inputs.ShorterSideResizer;
import io.pinshard.baseline.inputs.SourceImage;
import io.pinshard.format.Codec;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.agrona.concurrent.UnsafeBuffer;
import org.bytedeco.opencv.opencv_core.Mat;

/**
 * The benchmark inputs, prepared once and cached (under {@code ~/.cache/pinshard/jmh-inputs}, or
 * {@code -Dpinshard.cache}): the full-size photos as JPEG files (the seed's "before"), their 320-px
 * shorter-side copies as JPEG files (the seed's "after" without shards) and lossless PNGs, and pinshard
 * datasets of any record count in raw, lz4 and jpeg, the distinct images replicated to that count.
 * Every folder is built under a temporary name and renamed when complete, so an interrupted run
 * never leaves a half-made input that a later run would trust.
 */
public final class BenchmarkInputs {
    /** The seed's target: shorter side 320 px. */
    public static final int SHORTER_SIDE = 320;
    public static final int JPEG_QUALITY = 90;
    /** Generated images when there are no photos: enough distinct images that caches do not flatter. */
    public static final int SYNTHETIC_COUNT = 48;

    private final Path dir;
    private final ImageCollection collection;
    private final List<SourceImage> fullSizeJpegs;
    private final List<SourceImage> smallJpegs;

    private BenchmarkInputs(Path dir, ImageCollection collection, List<SourceImage> fullSizeJpegs,
                            List<SourceImage> smallJpegs) {
        this.dir = dir;
        this.collection = collection;
        this.fullSizeJpegs = fullSizeJpegs;
        this.smallJpegs = smallJpegs;
    }

    /** Inputs in the default cache, from real photos when available (else synthetic, said on stderr). */
    public static BenchmarkInputs prepareDefault() {
        try {
            Path root = ImageCollection.defaultCacheRoot();
            return prepare(root.resolve("jmh-inputs"),
                ImageCollection.realOrSynthetic(root.resolve("synthetic-images"), SYNTHETIC_COUNT, System.err),
                System.err);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare benchmark inputs: " + e.getMessage(), e);
        }
    }

    /** Prepares (or finds) the per-image files for {@code collection} under {@code cacheRoot}. */
    public static BenchmarkInputs prepare(Path cacheRoot, ImageCollection collection, PrintStream log) throws IOException {
        Path dir = cacheRoot.resolve(collection.synthetic() ? "synthetic" : "photos");
        Path images = dir.resolve("images");
        if (!Files.isDirectory(images)) {
            log.println("inputs: preparing full-size JPEGs and " + SHORTER_SIDE + "-px copies of "
                + collection.images().size() + " images in " + images + " (once)");
            buildAtomically(images, tmp -> writeImageFiles(collection, tmp));
        }
        List<SourceImage> full = new ArrayList<>();
        List<SourceImage> small = new ArrayList<>();
        for (int i = 0; i < collection.images().size(); i++) {
            SourceImage source = collection.images().get(i);
            Path fullFile = isJpeg(source.file()) ? source.file() : images.resolve(i + "-full.jpg");
            full.add(new SourceImage(fullFile, source.label()));
            small.add(new SourceImage(images.resolve(i + "-small.jpg"), source.label()));
        }
        return new BenchmarkInputs(dir, collection, List.copyOf(full), List.copyOf(small));
    }

    public ImageCollection collection() {
        return collection;
    }

    /** Full-size JPEG files: the originals where they are JPEGs, re-encoded (quality 90) where not. */
    public List<SourceImage> fullSizeJpegs() {
        return fullSizeJpegs;
    }

    /** Shorter side 320 px JPEG files (quality 90), one per distinct image. */
    public List<SourceImage> smallJpegs() {
        return smallJpegs;
    }

    /** A dataset of {@code records} 320-px records (the distinct images replicated) stored as {@code codec}. */
    public Path dataset(Codec codec, int records, PrintStream log) throws IOException {
        Path dataset = dir.resolve(codec.label() + "-" + records);
        if (!Files.isDirectory(dataset)) {
            log.println("inputs: writing " + records + " " + codec.label() + " records to " + dataset + " (once)");
            buildAtomically(dataset, tmp -> writeDataset(tmp, codec, records));
        }
        return dataset;
    }

    /** A dataset of {@code records} one-pixel records, for open and record-access costs. */
    public static Path tinyDataset(Path cacheRoot, int records, PrintStream log) throws IOException {
        Path dataset = cacheRoot.resolve("tiny-" + records);
        if (!Files.isDirectory(dataset)) {
            log.println("inputs: writing " + records + " one-pixel records to " + dataset + " (once)");
            buildAtomically(dataset, tmp -> {
                DatasetWriterOptions options = DatasetWriterOptions.defaults().withClasses(List.of("tiny"))
                    .withTargetShardBytes(64L << 20);
                UnsafeBuffer pixel = new UnsafeBuffer(new byte[] {42});
                try (DatasetWriter writer = new DatasetWriter(tmp, options)) {
                    for (int i = 0; i < records; i++) {
                        writer.appendPixels(pixel, 0, 1, 1, 1, 0, Integer.toString(i), Codec.RAW);
                    }
                    writer.finish();
                }
            });
        }
        return dataset;
    }

    private void writeDataset(Path target, Codec codec, int records) throws IOException {
        Map<String, Object> preprocessing = Map.of("shorterSide", SHORTER_SIDE, "resize", "opencv INTER_AREA",
            "codec", codec.label(), "jpegQuality", JPEG_QUALITY);
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withClasses(collection.classes())
            .withPreprocessing(preprocessing).withTargetShardBytes(64L << 20).withWriterVersion("pinshard-jmh inputs");
        int distinct = smallJpegs.size();
        List<byte[]> payloads = new ArrayList<>(distinct);
        int[][] shapes = new int[distinct][];
        Path images = dir.resolve("images");
        for (int i = 0; i < distinct; i++) {
            try (Mat small = ShorterSideResizer.readBgr(images.resolve(i + "-small.png"))) {
                shapes[i] = new int[] {small.rows(), small.cols()};
                payloads.add(codec == Codec.JPEG ? Files.readAllBytes(smallJpegs.get(i).file())
                    : ShorterSideResizer.rgbPixels(small));
            }
        }
        try (DatasetWriter writer = new DatasetWriter(target, options)) {
            for (int r = 0; r < records; r++) {
                int i = r % distinct;
                UnsafeBuffer payload = new UnsafeBuffer(payloads.get(i));
                String key = collection.root().relativize(collection.images().get(i).file()) + "#" + (r / distinct);
                int label = smallJpegs.get(i).label();
                if (codec == Codec.JPEG) {
                    writer.appendPayload(Codec.JPEG, payload, 0, payload.capacity(), shapes[i][0], shapes[i][1], 3,
                        label, key);
                } else {
                    writer.appendPixels(payload, 0, shapes[i][0], shapes[i][1], 3, label, key, codec);
                }
            }
            writer.finish();
        }
    }

    private static void writeImageFiles(ImageCollection collection, Path target) throws IOException {
        for (int i = 0; i < collection.images().size(); i++) {
            Path source = collection.images().get(i).file();
            try (Mat full = ShorterSideResizer.readBgr(source); Mat small = ShorterSideResizer.shorterSide(full, SHORTER_SIDE)) {
                if (!isJpeg(source)) {
                    Files.write(target.resolve(i + "-full.jpg"), ShorterSideResizer.encodeJpeg(full, JPEG_QUALITY));
                }
                Files.write(target.resolve(i + "-small.jpg"), ShorterSideResizer.encodeJpeg(small, JPEG_QUALITY));
                ShorterSideResizer.writePng(small, target.resolve(i + "-small.png"));
            }
        }
    }

    static boolean isJpeg(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        return name.endsWith(".jpg") || name.endsWith(".jpeg");
    }

    /** Something that fills a fresh directory. */
    @FunctionalInterface
    interface DirectoryBuilder {
        void build(Path directory) throws IOException;
    }

    /** Builds {@code target} in a sibling temporary folder and renames it into place when complete. */
    static void buildAtomically(Path target, DirectoryBuilder builder) throws IOException {
        Files.createDirectories(target.getParent());
        Path tmp = Files.createTempDirectory(target.getParent(), target.getFileName() + ".tmp-");
        try {
            builder.build(tmp);
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException | FileAlreadyExistsException e) {
                if (!Files.isDirectory(target)) {
                    throw e; // else another process finished the same input first: use theirs
                }
            }
        } finally {
            deleteRecursively(tmp);
        }
    }

    /** Deletes a folder tree; does nothing when it does not exist. */
    public static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
