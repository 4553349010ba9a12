package io.pinshard.spark;

import static io.pinshard.spark.SparkTestSupport.records;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.writer.convert.ConvertProgress;
import io.pinshard.writer.convert.Converter;
import io.pinshard.writer.convert.FolderLister;
import io.pinshard.writer.convert.ManifestLister;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spark-submit main class against convert: on a CSV manifest (convert's own lister) and on a local folder
 * (binaryFile's listing without content); in both each task reads its files.
 */
@org.junit.jupiter.api.Tag("process")
class PinshardSparkConvertTest {
    @TempDir
    Path temp;

    @Test
    void manifestInputGivesConvertsDatasetWithConvertsOptions() throws Exception {
        List<Path> jpegs = SparkTestSupport.jpegs(6);
        StringBuilder csv = new StringBuilder("path,label\n");
        for (int i = 0; i < jpegs.size(); i++) {
            csv.append(jpegs.get(i)).append(',').append(i % 2 == 0 ? "even" : "odd").append('\n');
        }
        csv.append(temp.resolve("missing.jpg")).append(",odd\n");
        Path manifest = temp.resolve("images.csv");
        Files.writeString(manifest, csv);
        String[] convertFlags = {"--shorter-side", "96", "--codec", "jpeg", "--jpeg-quality", "85", "--shard-size", "64KiB"};

        Path converted = temp.resolve("converted");
        new Converter(SparkConvertOptions.parse(SparkConvertOptions.pick(java.util.Map.of("shorterSide", "96", "codec",
            "jpeg", "jpegQuality", "85", "shardSize", "64KiB"))).withWorkers(2), ConvertProgress.NONE)
            .run(ManifestLister.list(manifest, true), null, converted);
        SparkTestSupport.spark();
        Path written = temp.resolve("spark");
        String[] args = Stream.concat(Stream.of(manifest.toString(), "-o", written.toString(), "--partitions", "3"),
            Stream.of(convertFlags)).toArray(String[]::new);
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        assertEquals(0, PinshardSparkConvert.run(args, new PrintStream(printed, true, StandardCharsets.UTF_8)));
        String summary = printed.toString(StandardCharsets.UTF_8);
        assertTrue(summary.contains("images in: 7   written: 6   rejected: 1"), summary);

        assertEquals(List.of(), new DatasetVerifier().verify(written));
        assertEquals(records(converted), records(written));
        DatasetManifest ours = Json.readManifest(written);
        assertEquals(List.of("even", "odd"), ours.classes());
        assertEquals(Json.readManifest(converted).rejected(), ours.rejected());
        assertEquals(Json.readManifest(converted).metadata().get("preprocessing"), ours.metadata().get("preprocessing"));

        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> PinshardSparkConvert.run(
            new String[] {manifest.toString(), "-o", temp.resolve("x").toString(), "--max-aspect", "0.5"}, System.out));
        assertEquals("--max-aspect must be 0 (off) or at least 1: 0.5", bad.getMessage());
    }

    @Test
    void localFolderGivesConvertsDatasetWithTheTasksReadingTheFiles() throws Exception {
        List<Path> jpegs = SparkTestSupport.jpegs(5);
        Path photos = SparkTestSupport.photos();
        Path input = temp.resolve("folder");
        for (Path jpeg : jpegs) {
            Path copy = input.resolve(photos.relativize(jpeg).toString());
            Files.createDirectories(copy.getParent());
            Files.copy(jpeg, copy);
        }
        Files.writeString(input.resolve(photos.relativize(jpegs.get(0)).getParent().resolve("broken.jpg")), "no JPEG");
        Path converted = temp.resolve("folder-converted");
        new Converter(SparkConvertOptions.parse(java.util.Map.of("shorterSide", "96")).withWorkers(2), ConvertProgress.NONE)
            .run(FolderLister.list(input, true), null, converted);
        SparkTestSupport.spark();
        Path written = temp.resolve("folder-spark");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        assertEquals(0, PinshardSparkConvert.run(new String[] {input.toString(), "-o", written.toString(), "--shorter-side",
            "96", "--partitions", "2"}, new PrintStream(printed, true, StandardCharsets.UTF_8)));
        String summary = printed.toString(StandardCharsets.UTF_8);
        assertTrue(summary.contains("images in: 6   written: 5   rejected: 1"), summary);
        assertEquals(List.of(), new DatasetVerifier().verify(written));
        assertEquals(records(converted), records(written));
        DatasetManifest ours = Json.readManifest(written);
        assertEquals(Json.readManifest(converted).classes(), ours.classes());
        assertEquals(Json.readManifest(converted).rejected(), ours.rejected());
    }
}
