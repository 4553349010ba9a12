package io.pinshard.spark;

import static io.pinshard.spark.SparkTestSupport.records;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.spark.SparkTestSupport.Decoded;
import io.pinshard.writer.convert.ConvertOptions;
import io.pinshard.writer.convert.ConvertProgress;
import io.pinshard.writer.convert.ConvertSummary;
import io.pinshard.writer.convert.ConvertedImage;
import io.pinshard.writer.convert.Converter;
import io.pinshard.writer.convert.FolderLister;
import io.pinshard.writer.convert.ImageProcessor;
import io.pinshard.writer.convert.InputItem;
import io.pinshard.writer.convert.OutputCodec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data source against {@code pinshard convert} on the real photos, with bad inputs mixed in: the same records
 * (keys, labels, decoded pixels byte for byte) and the same rejections with the same reasons; the result verifies and
 * reads back through {@code format("pinshard")}.
 */
@org.junit.jupiter.api.Tag("process")
class PinshardWriteTest {
    /** The options both sides get; small shards, so every task writes several. */
    static final Map<String, String> OPTIONS = Map.of("shorterSide", "192", "codec", "auto", "shardSize", "256KiB");

    @TempDir
    static Path temp;
    static Path input;
    static int images;

    @BeforeAll
    static void input() throws IOException {
        Path photos = SparkTestSupport.photos();
        assumeTrue(photos != null, SparkTestSupport.NO_PHOTOS);
        input = temp.resolve("input");
        images = SparkTestSupport.copyPhotos(photos, input, true);
        Path aJpeg;
        try (var files = Files.walk(input)) {
            aJpeg = files.filter(p -> p.toString().endsWith(".jpg")).sorted().findFirst().orElseThrow();
        }
        byte[] jpeg = Files.readAllBytes(aJpeg);
        Files.write(input.resolve("Autumn/truncated.jpg"), java.util.Arrays.copyOf(jpeg, jpeg.length / 3));
        Files.writeString(input.resolve("Grey/not-an-image.jpg"), "this is text, not a JPEG\n");
        Files.write(input.resolve("Kite/empty.png"), new byte[0]); // convert rejects it; binaryFile never shows it
        Files.write(input.resolve("stray.jpg"), jpeg); // not inside a class folder
        Files.writeString(input.resolve("Flow/readme.txt"), "not an image: ignored by both");
        images += 4;
    }

    static ConvertOptions convertOptions() {
        return SparkConvertOptions.parse(OPTIONS).withWorkers(2);
    }

    private static Path converted;
    private static ConvertSummary convertSummary;

    /** {@code pinshard convert} of the input (once, for every test that compares with it). */
    static synchronized Path converted() throws Exception {
        if (converted == null) {
            Path into = temp.resolve("converted");
            convertSummary = new Converter(convertOptions(), ConvertProgress.NONE).run(FolderLister.list(input, true), null, into);
            converted = into;
        }
        return converted;
    }

    /** {@code written} holds convert's records (keys, labels, shapes, codecs, pixels) and its rejections but one. */
    static void assertSameAsConvert(Path written) throws Exception {
        DatasetManifest ours = Json.readManifest(written);
        DatasetManifest theirs = Json.readManifest(converted());
        assertEquals(theirs.classes(), ours.classes());
        assertEquals(theirs.metadata().get("preprocessing"), ours.metadata().get("preprocessing"));
        Map<String, Decoded> expected = records(converted());
        Map<String, Decoded> actual = records(written);
        assertEquals(expected.keySet(), actual.keySet());
        for (String key : expected.keySet()) {
            assertEquals(expected.get(key), actual.get(key), key + ": label, shape, codec or pixels differ from convert's");
        }
        // Spark's file scan drops zero-length files before any task sees them: convert's one extra rejection.
        Map<String, String> convertRejections = rejections(theirs);
        assertEquals("empty file (0 bytes)", convertRejections.remove("Kite/empty.png"));
        assertEquals(convertRejections, rejections(ours), "the same inputs rejected for the same reasons");
        assertEquals(3, ours.rejected().size(), "truncated, not an image, not in a class folder: " + ours.rejected());
        assertTrue(rejections(ours).get("stray.jpg").startsWith("not inside a class folder"));
        Map<?, ?> meta = (Map<?, ?>) ours.metadata().get("spark");
        int given = images - 1;
        assertEquals((long) given, ((Number) meta.get("inputs")).longValue());
        assertEquals(given, ours.records() + ours.rejected().size(), "images in = written + rejected");
        assertEquals(convertSummary.written(), ours.records());
        assertFalse(Files.exists(written.resolve(Staging.FOLDER)), "staging removed after the commit");
    }

    @Test
    void sameRecordsAsConvertVerifiesAndReadsBack() throws Exception {
        SparkSession spark = SparkTestSupport.spark();
        Path written = temp.resolve("spark");
        Dataset<Row> files = spark.read().format("binaryFile").option("recursiveFileLookup", "true").load(input.toString());
        assertTrue(files.rdd().getNumPartitions() >= 3, "the photos should spread over several tasks");
        files.write().format("pinshard").mode("append").options(OPTIONS).option("root", input.toString()).save(written.toString());

        assertEquals(List.of(), new DatasetVerifier().verify(written), "pinshard verify of the Spark dataset");
        assertSameAsConvert(written);
        DatasetManifest ours = Json.readManifest(written);
        Map<String, Decoded> actual = records(written);
        Map<?, ?> meta = (Map<?, ?>) ours.metadata().get("spark");
        assertTrue(ours.shards().size() > ((Number) meta.get("partitions")).intValue(), "several shards per task");

        // Read back: one row per record, the index columns and the decoded pixels as the reader gives them.
        Dataset<Row> read = spark.read().format("pinshard").option("payload", "pixels").load(written.toString());
        assertEquals(ours.shards().size(), read.rdd().getNumPartitions(), "a partition per shard");
        List<Row> rows = read.collectAsList();
        assertEquals(ours.records(), rows.size());
        Set<Long> recordNumbers = new HashSet<>();
        for (Row row : rows) {
            Decoded record = actual.get(row.getString(row.fieldIndex("key")));
            assertNotNull(record, row.toString());
            int label = row.getInt(row.fieldIndex("label"));
            assertEquals(record.label(), label);
            assertEquals(ours.classes().get(label), row.getString(row.fieldIndex("className")));
            assertEquals(record.height(), row.getInt(row.fieldIndex("height")));
            assertEquals(record.width(), row.getInt(row.fieldIndex("width")));
            assertEquals(record.channels(), row.getInt(row.fieldIndex("channels")));
            assertEquals(record.codec().label(), row.getString(row.fieldIndex("codec")));
            assertTrue(row.getString(row.fieldIndex("shard")).startsWith("part-"));
            assertArrayEquals(record.pixels(), (byte[]) row.get(row.fieldIndex("pixels")));
            recordNumbers.add(row.getLong(row.fieldIndex("record")));
        }
        assertEquals(ours.records(), recordNumbers.size());
        Row stored = spark.read().format("pinshard").option("payload", "stored").load(written.toString())
            .selectExpr("sum(length(payload)) = sum(payloadLength)", "count(distinct key)").first();
        assertTrue(stored.getBoolean(0), "stored payloads are as long as the index says");
        assertEquals(ours.records(), stored.getLong(1));

        // append refuses a directory that already holds a dataset
        Exception refused = assertThrows(Exception.class, () -> files.write().format("pinshard").mode("append")
            .options(OPTIONS).option("root", input.toString()).save(written.toString()));
        assertTrue(String.valueOf(refused.getMessage()).contains("already holds a dataset"), refused.toString());
    }

    /**
     * binaryFile's rows without content (what PinshardSparkConvert writes for a local folder): the scan opens no
     * file, each task reads its files as convert reads them, and the dataset is convert's; a path that is gone or
     * not on a local file system is rejected with its reason.
     */
    @Test
    void rowsWithoutContentAreReadByTheTasksAsConvertReadsFiles() throws Exception {
        SparkSession spark = SparkTestSupport.spark();
        Path written = temp.resolve("spark-paths");
        Dataset<Row> files = spark.read().format("binaryFile").option("recursiveFileLookup", "true").load(input.toString())
            .select("path", "length");
        assertTrue(files.rdd().getNumPartitions() >= 3, "the photos should spread over several tasks");
        files.write().format("pinshard").mode("append").options(OPTIONS).option("root", input.toString())
            .save(written.toString());
        assertEquals(List.of(), new DatasetVerifier().verify(written), "pinshard verify of the Spark dataset");
        assertSameAsConvert(written);

        String gone = "file:" + temp.resolve("gone folder/gone.jpg");
        String remote = "s3a://bucket/train/a.jpg";
        String noPath = "file:relative/a.jpg";
        StructType schema = new StructType().add("path", DataTypes.StringType).add("length", DataTypes.LongType);
        Path odd = temp.resolve("spark-paths-odd");
        spark.createDataFrame(List.of(RowFactory.create(gone, 1000L), RowFactory.create(remote, 1000L),
                RowFactory.create(noPath, 1000L)), schema)
            .write().format("pinshard").mode("append").options(OPTIONS).option("labels", "none").save(odd.toString());
        DatasetManifest manifest = Json.readManifest(odd);
        assertEquals(0, manifest.records());
        Map<String, String> reasons = rejections(manifest);
        assertEquals(Set.of(gone, remote, noPath), reasons.keySet());
        assertTrue(reasons.get(noPath).startsWith("cannot read: not a path ("), reasons.get(noPath));
        assertTrue(reasons.get(gone).startsWith("cannot read: ") && reasons.get(gone).contains("gone.jpg"), reasons.get(gone));
        assertEquals("cannot read: " + remote + " is not a local file (rows of path and length name local files; give"
            + " rows on another file system binaryFile's content column)", reasons.get(remote));
    }

    @Test
    void optionsAreCheckedWithConvertsMessages() {
        SparkSession spark = SparkTestSupport.spark();
        Dataset<Row> files = spark.read().format("binaryFile").option("recursiveFileLookup", "true").load(input.toString());
        Path out = temp.resolve("never");
        Exception e = assertThrows(Exception.class, () -> files.write().format("pinshard").mode("append")
            .option("root", input.toString()).option("shorterSide", "0").save(out.toString()));
        assertTrue(String.valueOf(e.getMessage()).contains("--shorter-side must be between 1 and 65535: 0"), e.toString());
        e = assertThrows(Exception.class, () -> files.write().format("pinshard").mode("append")
            .option("root", input.toString()).option("codec", "png").save(out.toString()));
        assertTrue(String.valueOf(e.getMessage()).contains("unknown codec 'png' (expected raw, lz4, jpeg, yuv420 or auto)"),
            e.toString());
        e = assertThrows(Exception.class, () -> files.write().format("pinshard").mode("append")
            .option("root", input.toString()).option("jpegQuality", "101").save(out.toString()));
        assertTrue(String.valueOf(e.getMessage()).contains("--jpeg-quality must be between 1 and 100: 101"), e.toString());
        assertFalse(Files.exists(out.resolve(DatasetManifest.FILE_NAME)));
    }

    /**
     * Decoded pixel rows (a PNG's own pixels: PNG is lossless, so decode-then-rows equals convert's decode) give the
     * records convert gives for the files; bad shapes are rejected with reasons; overwrite replaces the dataset.
     */
    @Test
    void pixelRowsMatchConvertOfTheSameImagesAndOverwriteReplaces() throws Exception {
        List<Path> pngs;
        try (var files = Files.walk(input)) {
            pngs = files.filter(p -> p.toString().endsWith(".png") && p.toString().contains("1080x")).sorted()
                .limit(2).toList(); // two are enough, and their full-size pixels travel as 6 MB rows
        }
        assumeTrue(pngs.size() >= 2, "the photos hold fewer than two 1080-wide PNGs");
        ImageProcessor fullSize = new ImageProcessor(ConvertOptions.defaults().withShorterSide(65535).withCodec(OutputCodec.RAW));
        StructType schema = new StructType().add("key", DataTypes.StringType).add("label", DataTypes.StringType)
            .add("height", DataTypes.IntegerType).add("width", DataTypes.IntegerType)
            .add("channels", DataTypes.IntegerType).add("bytes", DataTypes.BinaryType);
        List<Row> rows = new ArrayList<>();
        Path subset = temp.resolve("png-subset");
        for (Path png : pngs) {
            ConvertedImage decoded = fullSize.convert(InputItem.file(png.toString(), 0, png));
            assertEquals(null, decoded.rejectReason());
            String key = input.relativize(png).toString();
            rows.add(RowFactory.create(key, key.substring(0, key.indexOf('/')), decoded.height(), decoded.width(), 3,
                decoded.payload()));
            Path copy = subset.resolve(key);
            Files.createDirectories(copy.getParent());
            Files.copy(png, copy);
        }
        rows.add(RowFactory.create("bad/short.raw", null, 10, 10, 3, new byte[299]));
        rows.add(RowFactory.create("bad/five-channels.raw", null, 2, 2, 5, new byte[20]));
        Path converted = temp.resolve("png-converted");
        new Converter(convertOptions(), ConvertProgress.NONE).run(FolderLister.list(subset, true), null, converted);
        List<String> classes = Json.readManifest(converted).classes();

        SparkSession spark = SparkTestSupport.spark();
        Path written = temp.resolve("png-spark");
        Dataset<Row> frame = spark.createDataFrame(rows, schema).repartition(2);
        frame.write().format("pinshard").mode("append").options(OPTIONS)
            .option("classes", Json.MAPPER.writeValueAsString(classes)).save(written.toString());
        assertEquals(List.of(), new DatasetVerifier().verify(written));
        assertEquals(records(converted), records(written), "pixel rows give convert's records for the same images");
        Map<String, String> reasons = rejections(Json.readManifest(written));
        assertEquals(Set.of("bad/short.raw", "bad/five-channels.raw"), reasons.keySet());
        assertEquals("pixels hold 299 bytes, the shape 10x10x3 needs 300", reasons.get("bad/short.raw"));
        assertTrue(reasons.get("bad/five-channels.raw").startsWith("invalid shape 2x2x5"));

        // overwrite: the new dataset replaces the old one, whose shards are gone
        List<String> before = Json.readManifest(written).shards().stream().map(DatasetManifest.ShardEntry::file).toList();
        spark.createDataFrame(rows.subList(0, 1), schema).write().format("pinshard").mode("overwrite").options(OPTIONS)
            .option("classes", Json.MAPPER.writeValueAsString(classes)).save(written.toString());
        assertEquals(List.of(), new DatasetVerifier().verify(written));
        DatasetManifest replaced = Json.readManifest(written);
        assertEquals(1, replaced.records());
        Set<String> left = SparkTestSupport.filesBelow(written).stream().map(p -> p.getFileName().toString())
            .filter(n -> n.endsWith(".pinshard")).collect(Collectors.toSet());
        assertEquals(replaced.shards().stream().map(DatasetManifest.ShardEntry::file).collect(Collectors.toSet()), left,
            "only the new dataset's shards are left (before: " + before + ")");
    }

    static Map<String, String> rejections(DatasetManifest manifest) {
        Map<String, String> map = new TreeMap<>();
        manifest.rejected().forEach(r -> map.put(r.path(), r.reason()));
        return map;
    }
}
