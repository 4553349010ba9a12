package io.pinshard.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldType;
import io.pinshard.format.Json;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.reader.RecordView;
import io.pinshard.writer.convert.ConvertOptions;
import io.pinshard.writer.convert.ConvertProgress;
import io.pinshard.writer.convert.Converter;
import io.pinshard.writer.convert.FieldSpec;
import io.pinshard.writer.convert.InputListing;
import io.pinshard.writer.convert.OutputTakenException;
import io.pinshard.writer.convert.TestImageFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Parquet file in the Hugging Face datasets layout (image struct {bytes, path}, a ClassLabel column with its
 * names in the file's metadata, a caption, a list of floats) converts as a WebDataset tar does: every field kept,
 * every row a record or a rejection with its reason, and {@code verify} passes. Written with parquet-java (the
 * test alone has Hadoop's runtime jar, which writing needs); read without Hadoop.
 */
class ParquetConvertTest {
    static final MessageType HF = MessageTypeParser.parseMessageType("message hf {"
        + " optional group image { optional binary bytes; optional binary path (UTF8); }"
        + " optional binary caption (UTF8);"
        + " optional int64 label;"
        + " optional group bbox (LIST) { repeated group list { optional float element; } }"
        + " }");
    static final String HF_METADATA = "{\"info\":{\"features\":{\"label\":{\"names\":[\"cat\",\"dog\"],"
        + "\"_type\":\"ClassLabel\"}}}}";

    @TempDir
    Path tmp;

    static Path write(Path file, CompressionCodecName codec) throws IOException {
        byte[] bgr = TestImageFiles.gradient(30, 40, 3, 3, 10);
        SimpleGroupFactory rows = new SimpleGroupFactory(HF);
        try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(HF)
            .withCompressionCodec(codec).withExtraMetaData(Map.of("huggingface", HF_METADATA)).build()) {
            for (int r = 0; r < 4; r++) {
                Group row = rows.newGroup();
                Group image = row.addGroup("image");
                if (r != 2) { // row 2 has no image bytes: rejected
                    image.append("bytes", Binary.fromConstantByteArray(r == 1 ? TestImageFiles.png(bgr, 30, 40, 3)
                        : TestImageFiles.jpeg(bgr, 30, 40, 3)));
                }
                image.append("path", "img" + r + (r == 1 ? ".png" : ".jpg"));
                row.append("caption", "caption number " + r);
                row.append("label", r == 3 ? -1L : r % 2); // -1: the datasets library's "no label"
                Group bbox = row.addGroup("bbox");
                for (int i = 0; i < 4; i++) {
                    bbox.addGroup("list").append("element", r + i / 4f);
                }
                writer.write(row);
            }
        }
        return file;
    }

    @Test
    void huggingFaceLayoutConvertsWithEveryFieldKept() throws Exception {
        for (CompressionCodecName codec : List.of(CompressionCodecName.SNAPPY, CompressionCodecName.ZSTD,
            CompressionCodecName.GZIP, CompressionCodecName.UNCOMPRESSED)) {
            Path file = write(tmp.resolve(codec + ".parquet"), codec);
            List<FieldSpec> fields = FieldSpec.forTable("caption,bbox:box:float32[4]");
            InputListing listing = ParquetLister.list(file, true, fields, ParquetLister.DEFAULT_IMAGE_COLUMN, tmp);
            assertEquals(List.of("cat", "dog"), listing.classes(), "class names from the huggingface metadata");
            Path out = tmp.resolve("out-" + codec);
            new Converter(ConvertOptions.defaults().withShorterSide(16).withWorkers(2), ConvertProgress.NONE)
                .run(listing, null, out);
            DatasetManifest manifest = Json.readManifest(out);
            assertEquals(List.of(FieldSchema.variable("caption", FieldType.UTF8),
                FieldSchema.fixed("box", FieldType.FLOAT32, 4)), manifest.fields());
            assertEquals(3, manifest.records());
            assertEquals(1, manifest.rejected().size());
            assertTrue(manifest.rejected().get(0).reason().contains("no image bytes"), manifest.rejected().toString());
            try (Dataset dataset = Dataset.open(out)) {
                RecordView view = new RecordView();
                int[] rows = {0, 1, 3};
                for (int i = 0; i < 3; i++) {
                    dataset.record(i, view);
                    int r = rows[i];
                    assertEquals(codec + ".parquet/img" + r + (r == 1 ? ".png" : ".jpg"), view.key());
                    assertEquals(r == 3 ? -1 : r % 2, view.label());
                    assertEquals("caption number " + r, view.fieldString(0));
                    assertEquals(4, view.fieldElements(1));
                    assertEquals(r + 3 / 4f, view.fieldFloat(1, 3));
                    assertEquals(16, Math.min(view.height(), view.width()));
                }
            }
            assertEquals(List.of(), new DatasetVerifier().verify(out), codec.toString());
        }
    }

    @Test
    void aRerunComparesTheParquetFileNotItsSpoolAndRefusesOneThatChanged() throws Exception {
        Path file = write(tmp.resolve("rows.parquet"), CompressionCodecName.SNAPPY);
        Path out = tmp.resolve("out");
        Converter converter = new Converter(ConvertOptions.defaults().withShorterSide(16).withWorkers(2),
            ConvertProgress.NONE);
        converter.run(ParquetLister.list(file, true, List.of(), ParquetLister.DEFAULT_IMAGE_COLUMN, tmp), null, out);
        // A new listing spools the images into a new file: the same rows are still the same inputs.
        assertTrue(converter.run(ParquetLister.list(file, true, List.of(), ParquetLister.DEFAULT_IMAGE_COLUMN, tmp),
            null, out).alreadyComplete());
        Path rewritten = write(tmp.resolve("next.parquet"), CompressionCodecName.SNAPPY);
        Files.move(rewritten, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        InputListing again = ParquetLister.list(file, true, List.of(), ParquetLister.DEFAULT_IMAGE_COLUMN, tmp);
        OutputTakenException changed = assertThrows(OutputTakenException.class, () -> converter.run(again, null, out));
        assertEquals(OutputTakenException.Holding.CHANGED_INPUTS, changed.holds());
        assertTrue(changed.getMessage().contains("input rows.parquet/img0.jpg changed: its file " + file),
            changed.getMessage());
        assertEquals(3, converter.overwriting(true).run(again, null, out).written());
    }

    @Test
    void missingColumnsAndCorruptFilesAreRefusedNamingThem() throws Exception {
        Path file = write(tmp.resolve("a.parquet"), CompressionCodecName.SNAPPY);
        IOException noImage = assertThrows(IOException.class,
            () -> ParquetLister.list(file, true, List.of(), "picture", tmp));
        assertTrue(noImage.getMessage().contains("no column \"picture\""), noImage.getMessage());
        IOException noField = assertThrows(IOException.class,
            () -> ParquetLister.list(file, true, FieldSpec.forTable("text"), "image", tmp));
        assertTrue(noField.getMessage().contains("no column \"text\""), noField.getMessage());
        byte[] bytes = Files.readAllBytes(file);
        for (int at : new int[] {4, bytes.length / 2, bytes.length - 12}) {
            byte[] broken = bytes.clone();
            for (int i = at; i < Math.min(at + 8, broken.length - 8); i++) {
                broken[i] ^= (byte) 0x5a;
            }
            Path bad = tmp.resolve("bad" + at + ".parquet");
            Files.write(bad, broken);
            try {
                InputListing listing = ParquetLister.list(bad, true, List.of(), "image", tmp);
                // Damage inside an image's bytes still lists: the image is then rejected by the converter.
                assertTrue(listing.items().size() <= 4);
            } catch (IOException e) {
                assertTrue(e.getMessage().contains("bad" + at + ".parquet"), e.getMessage());
            }
        }
    }
}
