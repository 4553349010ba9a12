package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldType;
import io.pinshard.format.Json;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.reader.RecordView;
import io.pinshard.writer.convert.TestImageFiles;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code convert --fields}: a WebDataset tar with .jpg, .txt, .json and .cls members keeps every field and
 * verifies; unusable members reject their sample with the field named; {@code --fields-from} CSV and JSONL beside
 * an image folder; {@code inspect} shows the schema and {@code dump} the values.
 */
class ConvertFieldsTest {
    @TempDir
    Path tmp;

    private static final byte[] BGR = TestImageFiles.gradient(40, 60, 3, 7, 10);

    private CommandTestSupport.Result convert(Path input, Path output, String... extra) {
        String[] base = {"convert", input.toString(), "-o", output.toString(), "--shorter-side", "16", "--progress",
            "none", "--workers", "2"};
        String[] args = java.util.Arrays.copyOf(base, base.length + extra.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return CommandTestSupport.run(args);
    }

    private Path tar() throws IOException {
        Path tar = tmp.resolve("wds-000000.tar");
        try (OutputStream file = Files.newOutputStream(tar); TarArchiveOutputStream out = new TarArchiveOutputStream(file)) {
            add(out, "s/000.jpg", TestImageFiles.jpeg(BGR, 40, 60, 3));
            add(out, "s/000.txt", "a photo of a cat".getBytes(StandardCharsets.UTF_8));
            add(out, "s/000.json", "{\"label\": 1, \"url\": \"http://a/0\"}".getBytes(StandardCharsets.UTF_8));
            add(out, "s/000.cls", "1\n".getBytes(StandardCharsets.UTF_8));
            add(out, "s/001.png", TestImageFiles.png(BGR, 40, 60, 3));
            add(out, "s/001.txt", "un chat \u00e9l\u00e9gant".getBytes(StandardCharsets.UTF_8));
            add(out, "s/001.json", "{\"label\": 0}".getBytes(StandardCharsets.UTF_8));
            add(out, "s/001.cls", "0 2 5".getBytes(StandardCharsets.UTF_8));
            add(out, "s/002.jpg", TestImageFiles.jpeg(BGR, 40, 60, 3)); // no .txt: caption stored empty
            add(out, "s/002.cls", "0".getBytes(StandardCharsets.UTF_8));
            add(out, "s/003.jpg", TestImageFiles.jpeg(BGR, 40, 60, 3));
            add(out, "s/003.txt", new byte[] {(byte) 0xff, 'x'}); // not UTF-8: rejected, naming the field
            add(out, "s/003.cls", "0".getBytes(StandardCharsets.UTF_8));
            add(out, "s/004.jpg", TestImageFiles.jpeg(BGR, 40, 60, 3));
            add(out, "s/004.json", "{\"label\": 0, oops}".getBytes(StandardCharsets.UTF_8));
            add(out, "s/004.cls", "zero".getBytes(StandardCharsets.UTF_8)); // label "zero"; not an int32 list
        }
        return tar;
    }

    @Test
    void webDatasetMembersBecomeFieldsAndVerify() throws IOException {
        Path out = tmp.resolve("out");
        CommandTestSupport.Result result = convert(tar(), out, "--fields", "txt:caption,json:meta,cls:tags");
        assertEquals(0, result.exitCode(), result.err() + result.out());
        DatasetManifest manifest = Json.readManifest(out);
        assertEquals("1.1", manifest.formatVersion());
        assertEquals(List.of(FieldSchema.variable("caption", FieldType.UTF8), FieldSchema.variable("meta", FieldType.JSON),
            FieldSchema.variable("tags", FieldType.INT32)), manifest.fields());
        assertEquals(List.of("wds-000000.tar/s/003.jpg", "wds-000000.tar/s/004.jpg"),
            manifest.rejected().stream().map(DatasetManifest.Rejected::path).toList());
        assertTrue(manifest.rejected().get(0).reason().contains("field caption (member s/003.txt)"),
            manifest.rejected().get(0).reason());
        assertTrue(manifest.rejected().get(1).reason().contains("field meta (member s/004.json)"),
            manifest.rejected().get(1).reason());
        try (Dataset dataset = Dataset.open(out)) {
            assertEquals(3, dataset.size());
            RecordView view = new RecordView();
            int caption = dataset.fieldIndex("caption");
            int meta = dataset.fieldIndex("meta");
            int tags = dataset.fieldIndex("tags");
            dataset.record(0, view);
            assertEquals("a photo of a cat", view.fieldString(caption));
            assertEquals(Json.MAPPER.readTree("{\"label\": 1, \"url\": \"http://a/0\"}"),
                Json.MAPPER.readTree(view.fieldString(meta)));
            assertEquals(1, view.fieldElements(tags));
            assertEquals(1, view.fieldInt(tags, 0));
            dataset.record(1, view);
            assertEquals("un chat \u00e9l\u00e9gant", view.fieldString(caption));
            assertEquals(List.of(0, 2, 5), List.of(view.fieldInt(tags, 0), view.fieldInt(tags, 1), view.fieldInt(tags, 2)));
            dataset.record(2, view);
            assertEquals(0, view.fieldLength(caption), "a sample without a .txt member has an empty caption");
            assertEquals(0, view.fieldLength(meta));
        }
        assertEquals(List.of(), new DatasetVerifier().verify(out));
        CommandTestSupport.Result verify = CommandTestSupport.run("verify", out.toString());
        assertEquals(0, verify.exitCode(), verify.out() + verify.err());
        CommandTestSupport.Result inspect = CommandTestSupport.run("inspect", out.toString());
        assertTrue(inspect.out().contains("caption:utf8, meta:json, tags:int32[]"), inspect.out());
        CommandTestSupport.Result dump = CommandTestSupport.run("dump", out.resolve("shard-00000.pinshard").toString());
        assertTrue(dump.out().contains("field caption record[0] \"a photo of a cat\""), dump.out());
    }

    @Test
    void withoutFieldsTheSameTarConvertsAsFormatOneZero() throws IOException {
        Path out = tmp.resolve("plain");
        assertEquals(0, convert(tar(), out).exitCode());
        DatasetManifest manifest = Json.readManifest(out);
        assertEquals("1.0", manifest.formatVersion());
        assertEquals(null, manifest.fields());
        assertEquals(5, manifest.records() + manifest.rejected().size());
    }

    @Test
    void fixedLengthFieldRejectsSamplesWithTheWrongCount() throws IOException {
        Path out = tmp.resolve("fixed");
        assertEquals(0, convert(tar(), out, "--fields", "cls:label1:int32[1]").exitCode());
        DatasetManifest manifest = Json.readManifest(out);
        assertTrue(manifest.rejected().stream().anyMatch(r -> r.path().endsWith("001.png")
            && r.reason().contains("takes exactly 1")), manifest.rejected().toString());
    }

    @Test
    void fieldsFromCsvAndJsonlBesideAnImageFolder() throws IOException {
        Path images = tmp.resolve("images");
        Files.createDirectories(images.resolve("cat"));
        Files.createDirectories(images.resolve("dog"));
        Files.write(images.resolve("cat/a.jpg"), TestImageFiles.jpeg(BGR, 40, 60, 3));
        Files.write(images.resolve("dog/b.png"), TestImageFiles.png(BGR, 40, 60, 3));
        Files.write(images.resolve("dog/c.png"), TestImageFiles.png(BGR, 40, 60, 3));
        Path csv = tmp.resolve("fields.csv");
        Files.writeString(csv, "path,caption,box\ncat/a.jpg,\"a cat, sitting\",0 0 0.5 0.5\n"
            + "dog/b.png,a dog,\"0.1,0.2,0.3,0.4\"\nnowhere.jpg,ghost,0 0 0 0\n");
        Path fromCsv = tmp.resolve("csv-out");
        CommandTestSupport.Result result = convert(images, fromCsv, "--fields-from", csv.toString(), "--fields",
            "caption,box:box:float32[4]");
        assertEquals(0, result.exitCode(), result.err());
        DatasetManifest manifest = Json.readManifest(fromCsv);
        assertEquals(List.of("dog/c.png"), manifest.rejected().stream().map(DatasetManifest.Rejected::path).toList());
        assertTrue(manifest.rejected().get(0).reason().contains("no row for it in fields.csv"));
        try (Dataset dataset = Dataset.open(fromCsv)) {
            RecordView view = dataset.record(0, new RecordView());
            assertEquals("a cat, sitting", view.fieldString(0));
            assertEquals(0.5f, view.fieldFloat(1, 3));
            dataset.record(1, view);
            assertEquals(0.2f, view.fieldFloat(1, 1));
        }
        Path jsonl = tmp.resolve("fields.jsonl");
        Files.writeString(jsonl, "{\"path\": \"cat/a.jpg\", \"caption\": \"a cat\", \"ids\": [1, 2]}\n"
            + "{\"path\": \"dog/b.png\", \"caption\": \"a dog\", \"ids\": 7}\n"
            + "{\"path\": \"dog/c.png\", \"caption\": {\"not\": \"text\"}, \"ids\": [1.5]}\n");
        Path fromJsonl = tmp.resolve("jsonl-out");
        assertEquals(0, convert(images, fromJsonl, "--fields-from", jsonl.toString(), "--fields",
            "caption,ids:ids:int64").exitCode());
        DatasetManifest m = Json.readManifest(fromJsonl);
        assertEquals(List.of("dog/c.png"), m.rejected().stream().map(DatasetManifest.Rejected::path).toList());
        assertTrue(m.rejected().get(0).reason().contains("field ids"), m.rejected().get(0).reason());
        try (Dataset dataset = Dataset.open(fromJsonl)) {
            RecordView view = dataset.record(0, new RecordView());
            assertEquals("a cat", view.fieldString(0));
            assertEquals(2, view.fieldElements(1));
            assertEquals(2L, view.fieldLong(1, 1));
            dataset.record(1, view);
            assertEquals(7L, view.fieldLong(1, 0));
        }
        assertEquals(List.of(), new DatasetVerifier().verify(fromJsonl));
    }

    @org.junit.jupiter.api.Tag("process")
    @Test
    void killedFieldsConversionResumesToTheSameBytes() throws Exception {
        Path tar = tmp.resolve("many.tar");
        try (OutputStream file = Files.newOutputStream(tar); TarArchiveOutputStream out = new TarArchiveOutputStream(file)) {
            for (int i = 0; i < 12; i++) {
                add(out, String.format("s/%03d.jpg", i), TestImageFiles.jpeg(BGR, 40, 60, 3));
                add(out, String.format("s/%03d.txt", i), ("caption " + i).getBytes(StandardCharsets.UTF_8));
                add(out, String.format("s/%03d.cls", i), Integer.toString(i % 3).getBytes(StandardCharsets.UTF_8));
            }
        }
        String[] options = {"--fields", "txt:caption,cls:tags", "--shard-size", "2KiB"};
        Path reference = tmp.resolve("reference");
        assertEquals(0, convert(tar, reference, options).exitCode());
        Path killed = tmp.resolve("killed");
        List<String> flags = new java.util.ArrayList<>(io.pinshard.fixtures.ChildJvm.pinshardFlags());
        flags.add("-Dpinshard.convert.testHaltAfterCommits=7");
        List<String> command = new java.util.ArrayList<>(io.pinshard.fixtures.ChildJvm.command(flags, PinshardCommand.class,
            "convert", tar.toString(), "-o", killed.toString(), "--shorter-side", "16", "--progress", "none",
            "--workers", "2"));
        command.addAll(List.of(options));
        Process child = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(tmp.resolve("child.log").toFile()).start();
        assertTrue(child.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(137, child.exitValue(), Files.readString(tmp.resolve("child.log")));
        assertTrue(Files.list(killed).anyMatch(p -> p.getFileName().toString().endsWith(".pinshard")),
            "some shards were finished before the halt");
        assertEquals(0, convert(tar, killed, options).exitCode());
        ConvertFixtures.assertSameFiles(reference, killed);
        assertEquals(List.of(), new DatasetVerifier().verify(killed));
    }

    @Test
    void partsWithFieldsMergeIntoTheDatasetOfOneRun() throws IOException {
        Path tar = tar();
        String[] fields = {"--fields", "txt:caption,cls:tags"};
        Path single = tmp.resolve("single");
        assertEquals(0, convert(tar, single, fields).exitCode());
        Path[] parts = {tmp.resolve("p0"), tmp.resolve("p1")};
        for (int i = 0; i < 2; i++) {
            String[] args = {"--fields", "txt:caption,cls:tags", "--part", i + "/2"};
            assertEquals(0, convert(tar, parts[i], args).exitCode());
        }
        Path merged = tmp.resolve("merged");
        CommandTestSupport.Result m = CommandTestSupport.run("merge", parts[0].toString(), parts[1].toString(), "-o",
            merged.toString());
        assertEquals(0, m.exitCode(), m.err());
        DatasetManifest manifest = Json.readManifest(merged);
        assertEquals("1.1", manifest.formatVersion());
        assertEquals(Json.readManifest(single).fields(), manifest.fields());
        try (Dataset one = Dataset.open(single); Dataset two = Dataset.open(merged)) {
            assertEquals(one.size(), two.size());
            RecordView a = new RecordView();
            RecordView b = new RecordView();
            for (long r = 0; r < one.size(); r++) {
                one.record(r, a);
                two.record(r, b);
                assertEquals(a.key(), b.key());
                assertEquals(a.fieldString(0), b.fieldString(0));
                assertEquals(a.fieldElements(1), b.fieldElements(1));
            }
        }
        assertEquals(List.of(), new DatasetVerifier().verify(merged));
        Path other = tmp.resolve("other");
        assertEquals(0, convert(tar, other, "--fields", "txt:caption", "--part", "1/2").exitCode());
        CommandTestSupport.Result mixed = CommandTestSupport.run("merge", parts[0].toString(), other.toString(), "-o",
            tmp.resolve("mixed").toString());
        assertTrue(mixed.exitCode() != 0, "parts with other fields do not merge: " + mixed.out());
    }

    @Test
    void parquetInHuggingFaceLayoutConvertsWithItsCaptions() throws IOException {
        org.apache.parquet.schema.MessageType schema = org.apache.parquet.schema.MessageTypeParser.parseMessageType(
            "message hf { optional group image { optional binary bytes; optional binary path (UTF8); }"
                + " optional binary text (UTF8); }");
        Path file = tmp.resolve("train-00000-of-00001.parquet");
        org.apache.parquet.example.data.simple.SimpleGroupFactory rows =
            new org.apache.parquet.example.data.simple.SimpleGroupFactory(schema);
        try (org.apache.parquet.hadoop.ParquetWriter<org.apache.parquet.example.data.Group> writer =
                 org.apache.parquet.hadoop.example.ExampleParquetWriter.builder(
                     new org.apache.parquet.io.LocalOutputFile(file)).withType(schema)
                     .withConf(new org.apache.parquet.conf.PlainParquetConfiguration()).build()) {
            for (int r = 0; r < 3; r++) {
                org.apache.parquet.example.data.Group row = rows.newGroup();
                row.addGroup("image").append("bytes", org.apache.parquet.io.api.Binary.fromConstantByteArray(
                    TestImageFiles.jpeg(BGR, 40, 60, 3))).append("path", "p" + r + ".jpg");
                row.append("text", "caption " + r);
                writer.write(row);
            }
        }
        Path out = tmp.resolve("parquet-out");
        CommandTestSupport.Result result = convert(file, out, "--fields", "text:caption");
        assertEquals(0, result.exitCode(), result.err() + result.out());
        assertTrue(result.out().contains("images in: 3   written: 3   rejected: 0"), result.out());
        try (Dataset dataset = Dataset.open(out)) {
            RecordView view = dataset.record(2, new RecordView());
            assertEquals("train-00000-of-00001.parquet/p2.jpg", view.key());
            assertEquals("caption 2", view.fieldString(dataset.fieldIndex("caption")));
            assertEquals(-1, view.label(), "no label column: unlabelled");
        }
        assertEquals(List.of(), new DatasetVerifier().verify(out));
    }

    private static void add(TarArchiveOutputStream out, String name, byte[] bytes) throws IOException {
        TestImageFiles.addTarMember(out, name, bytes);
    }
}
