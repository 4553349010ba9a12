package io.pinshard.spark;

import io.pinshard.format.Codec;
import io.pinshard.reader.CrcCheck;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordDecoder;
import io.pinshard.reader.RecordView;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.agrona.BufferUtil;
import org.apache.spark.sql.SparkSession;

/** One Spark session for the module's tests, the real photos, and a dataset's records decoded by the project's reader. */
final class SparkTestSupport {
    private static SparkSession session;

    private SparkTestSupport() {
    }

    /**
     * {@code local[2,4]}: two cores, and a failed task is retried up to 4 times (plain {@code local[2]} never retries).
     * Small file partitions, so a few dozen photos spread over several tasks.
     */
    static synchronized SparkSession spark() {
        if (session == null) {
            session = SparkSession.builder().master("local[2,4]").appName("pinshard-spark-tests")
                .config("spark.ui.enabled", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.sql.shuffle.partitions", "4")
                .config("spark.sql.files.maxPartitionBytes", String.valueOf(3 << 20))
                .config("spark.sql.files.openCostInBytes", String.valueOf(1 << 20))
                .getOrCreate();
        }
        return session;
    }

    /** The cached photos (scripts/fetch-photos.sh), or null when they are not on this machine. */
    static Path photos() {
        String configured = System.getenv("PINSHARD_PHOTOS");
        Path dir = configured != null ? Path.of(configured) : Path.of(System.getProperty("user.home"), ".cache/pinshard/photos");
        return Files.isRegularFile(dir.resolve(".complete")) ? dir : null;
    }

    static final String NO_PHOTOS = "real photos not cached: run scripts/fetch-photos.sh (needs a Debian mirror)";

    /** The first {@code limit} JPEGs of the cached photos, in path order; the test is skipped without the photos. */
    static List<Path> jpegs(int limit) throws IOException {
        Path photos = photos();
        org.junit.jupiter.api.Assumptions.assumeTrue(photos != null, NO_PHOTOS);
        try (Stream<Path> files = Files.walk(photos)) {
            return files.filter(p -> p.toString().endsWith(".jpg")).sorted().limit(limit).toList();
        }
    }

    /**
     * Copies the photos' JPEGs and (with {@code pngs}) the 1080-wide PNGs into {@code into}/Theme/name, an
     * ImageFolder tree; returns how many images it copied.
     */
    static int copyPhotos(Path photos, Path into, boolean pngs) throws IOException {
        List<Path> picked;
        try (Stream<Path> files = Files.walk(photos)) {
            picked = files.filter(Files::isRegularFile).filter(p -> {
                String name = p.getFileName().toString();
                return name.endsWith(".jpg") || pngs && name.endsWith(".png") && name.contains("1080x");
            }).sorted().toList();
        }
        for (Path file : picked) {
            Path target = into.resolve(photos.relativize(file).toString());
            Files.createDirectories(target.getParent());
            Files.copy(file, target);
        }
        return picked.size();
    }

    /** A record as the reader sees it: label, shape, codec and the decoded pixels. */
    record Decoded(int label, int height, int width, int channels, Codec codec, byte[] pixels) {
        @Override
        public boolean equals(Object other) {
            return other instanceof Decoded d && d.label == label && d.height == height && d.width == width
                && d.channels == channels && d.codec == codec && Arrays.equals(d.pixels, pixels);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(pixels);
        }

        @Override
        public String toString() {
            return "label " + label + " " + height + "x" + width + "x" + channels + " " + codec;
        }
    }

    /** Every record of the dataset in {@code dir}, by key, decoded by {@link RecordDecoder} (checksums checked). */
    static Map<String, Decoded> records(Path dir) {
        Map<String, Decoded> records = new TreeMap<>();
        try (Dataset dataset = Dataset.open(dir); RecordDecoder decoder = new RecordDecoder(CrcCheck.ALWAYS)) {
            RecordView view = new RecordView();
            ByteBuffer scratch = null;
            for (long r = 0; r < dataset.size(); r++) {
                dataset.record(r, view);
                int bytes = view.decodedBytes();
                if (scratch == null || scratch.capacity() < bytes) {
                    scratch = BufferUtil.allocateDirectAligned(bytes, 64);
                }
                decoder.decode(view, BufferUtil.address(scratch), scratch.capacity());
                byte[] pixels = new byte[bytes];
                scratch.duplicate().get(pixels);
                Decoded previous = records.put(view.key(), new Decoded(view.label(), view.height(), view.width(),
                    view.channels(), view.codec(), pixels));
                if (previous != null) {
                    throw new AssertionError("key " + view.key() + " appears twice in " + dir);
                }
            }
        }
        return records;
    }

    /** Files below {@code dir} (none when it does not exist). */
    static List<Path> filesBelow(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).sorted().toList();
        }
    }
}
