package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.writer.convert.InputRecord;
import io.pinshard.writer.convert.TestImageFiles;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConvertCommandTest {
    @TempDir
    Path tmp;

    private static final String[] SMALL = {"--shorter-side", "24", "--progress", "none"};

    private CommandTestSupport.Result convert(Path input, Path output, String... extra) {
        String[] args = new String[4 + SMALL.length + extra.length];
        args[0] = "convert";
        args[1] = input.toString();
        args[2] = "-o";
        args[3] = output.toString();
        System.arraycopy(SMALL, 0, args, 4, SMALL.length);
        System.arraycopy(extra, 0, args, 4 + SMALL.length, extra.length);
        return CommandTestSupport.run(args);
    }

    @Test
    void imageFolderConvertsEveryFormatAndListsEveryBadFile() throws IOException {
        Path input = ConvertFixtures.imageFolder(tmp.resolve("in"));
        Path out = tmp.resolve("out");
        CommandTestSupport.Result result = convert(input, out, "--workers", "2");
        assertEquals(0, result.exitCode(), result.err());
        int in = ConvertFixtures.GOOD + ConvertFixtures.BAD;
        assertTrue(result.out().contains("images in: " + in + "   written: " + ConvertFixtures.GOOD + "   rejected: "
            + ConvertFixtures.BAD), result.out());
        assertTrue(result.out().contains("1 non-image files ignored"), result.out());
        ConvertFixtures.assertVerifies(out);
        DatasetManifest manifest = Json.readManifest(out);
        assertEquals(List.of("cat", "dog", "zebra"), manifest.classes());
        assertEquals(ConvertFixtures.GOOD, manifest.records());
        assertEquals(List.of("cat/zero.jpg", "dog/half.jpg", "dog/notes.png", "zebra/half.png"),
            manifest.rejected().stream().map(DatasetManifest.Rejected::path).toList());
        assertTrue(manifest.rejected().get(0).reason().contains("empty file"));
        assertTrue(manifest.rejected().get(1).reason().contains("truncated JPEG"));
        assertTrue(manifest.rejected().get(2).reason().contains("not an image"));
        assertTrue(manifest.rejected().get(3).reason().contains("cannot decode"));
        List<String> records = ConvertFixtures.records(out);
        // Class order, then path order; label = class index; every record RGB with shorter side 24.
        String previous = "";
        for (String record : records) {
            String[] f = record.split("\\|");
            assertTrue(f[0].compareTo(previous) > 0, "order: " + f[0] + " after " + previous);
            previous = f[0];
            assertEquals(List.of("cat", "dog", "zebra").indexOf(f[0].substring(0, f[0].indexOf('/'))), Integer.parseInt(f[1]));
            String[] shape = f[3].split("x");
            assertEquals(24, Math.min(Integer.parseInt(shape[0]), Integer.parseInt(shape[1])), record);
            assertEquals("3", shape[2]);
        }
        assertEquals(1, CommandTestSupport.run("convert", input.toString(), "-o", tmp.resolve("strict").toString(),
            "--strict", "--progress", "none").exitCode(), "--strict fails on rejections");
        assertTrue(Files.exists(tmp.resolve("strict").resolve(DatasetManifest.FILE_NAME)), "--strict still writes the dataset");
    }

    @Test
    void unlabeledTreesAndEveryCodec() throws IOException {
        Path input = ConvertFixtures.imageFolder(tmp.resolve("in"));
        for (String codec : new String[] {"raw", "lz4", "jpeg", "yuv420", "auto"}) {
            Path out = tmp.resolve(codec);
            CommandTestSupport.Result result = convert(input, out, "--labels", "none", "--codec", codec);
            assertEquals(0, result.exitCode(), result.err());
            ConvertFixtures.assertVerifies(out);
            DatasetManifest manifest = Json.readManifest(out);
            assertEquals(List.of(), manifest.classes());
            for (String record : ConvertFixtures.records(out)) {
                assertTrue(record.contains("|-1|"), record);
                if (!codec.equals("auto")) {
                    assertTrue(record.contains("|" + codec.toUpperCase() + "|"), record);
                }
            }
        }
    }

    @Test
    void csvAndJsonlManifests() throws IOException {
        Path images = ConvertFixtures.imageFolder(tmp.resolve("in"));
        Files.writeString(tmp.resolve("in/list.csv"), "path,label\ncat/img00.jpg,tabby\n\"dog/img01.jpeg\",\"spot, the dog\"\n"
            + "missing.jpg,tabby\nzebra/img02.png,stripes\n");
        Path csvOut = tmp.resolve("csv");
        CommandTestSupport.Result csv = convert(images.resolve("list.csv"), csvOut);
        assertEquals(0, csv.exitCode(), csv.err());
        DatasetManifest manifest = Json.readManifest(csvOut);
        assertEquals(List.of("spot, the dog", "stripes", "tabby"), manifest.classes());
        assertEquals(List.of("cat/img00.jpg|2", "dog/img01.jpeg|0", "zebra/img02.png|1"),
            ConvertFixtures.records(csvOut).stream().map(r -> r.substring(0, r.indexOf('|', r.indexOf('|') + 1))).toList());
        assertEquals("missing.jpg", manifest.rejected().get(0).path());
        assertTrue(manifest.rejected().get(0).reason().startsWith("cannot read:"), manifest.rejected().get(0).reason());
        ConvertFixtures.assertVerifies(csvOut);

        Files.writeString(tmp.resolve("in/list.jsonl"), "{\"path\": \"cat/img03.png\", \"label\": 7}\n"
            + "{\"path\": \"dog/img04.png\", \"label\": 2}\nnot json\n");
        Path jsonOut = tmp.resolve("jsonl");
        CommandTestSupport.Result jsonl = convert(images.resolve("list.jsonl"), jsonOut);
        assertEquals(0, jsonl.exitCode(), jsonl.err());
        DatasetManifest jm = Json.readManifest(jsonOut);
        assertEquals(8, jm.classes().size(), "numeric labels are kept: classes 0..7");
        assertEquals(List.of("cat/img03.png|7", "dog/img04.png|2"),
            ConvertFixtures.records(jsonOut).stream().map(r -> r.substring(0, r.indexOf('|', r.indexOf('|') + 1))).toList());
        assertEquals(1, jm.rejected().size());
        assertTrue(jm.rejected().get(0).reason().contains("line 3"), jm.rejected().get(0).reason());
    }

    @Test
    void webDatasetTarShards() throws IOException {
        Path tar = tmp.resolve("wds-000000.tar");
        byte[] bgr = TestImageFiles.gradient(50, 70, 3, 5, 10);
        try (OutputStream file = Files.newOutputStream(tar); TarArchiveOutputStream out = new TarArchiveOutputStream(file)) {
            add(out, "s/000.jpg", TestImageFiles.jpeg(bgr, 50, 70, 3));
            add(out, "s/000.cls", "3\n".getBytes(StandardCharsets.UTF_8));
            add(out, "s/001.png", TestImageFiles.png(bgr, 50, 70, 3));
            add(out, "s/001.json", "{\"label\": 1, \"caption\": \"x\"}".getBytes(StandardCharsets.UTF_8));
            add(out, "s/002.cls", "0".getBytes(StandardCharsets.UTF_8));
            add(out, "s/003.webp", TestImageFiles.encode(".webp", bgr, 50, 70, 3));
            add(out, "s/003.txt", "a caption".getBytes(StandardCharsets.UTF_8));
            add(out, "s/003.cls", "0".getBytes(StandardCharsets.UTF_8));
            add(out, "s/004.jpg", new byte[] {1, 2, 3});
            add(out, "s/004.cls", "2".getBytes(StandardCharsets.UTF_8));
        }
        Path out = tmp.resolve("out");
        CommandTestSupport.Result result = convert(tar, out);
        assertEquals(0, result.exitCode(), result.err());
        assertTrue(result.out().contains("images in: 5   written: 3   rejected: 2"), result.out());
        assertEquals(List.of("wds-000000.tar/s/000.jpg|3", "wds-000000.tar/s/001.png|1", "wds-000000.tar/s/003.webp|0"),
            ConvertFixtures.records(out).stream().map(r -> r.substring(0, r.indexOf('|', r.indexOf('|') + 1))).toList());
        DatasetManifest manifest = Json.readManifest(out);
        assertEquals("wds-000000.tar/s/002", manifest.rejected().get(0).path());
        assertTrue(manifest.rejected().get(0).reason().contains("no image member"));
        assertEquals("wds-000000.tar/s/004.jpg", manifest.rejected().get(1).path());
        ConvertFixtures.assertVerifies(out);
        // The same tar given through its folder lists the same samples.
        Path viaFolder = tmp.resolve("out2");
        assertEquals(0, convert(tmp, viaFolder, "--input-kind", "webdataset").exitCode());
        assertEquals(ConvertFixtures.records(out), ConvertFixtures.records(viaFolder));
    }

    private static void add(TarArchiveOutputStream out, String name, byte[] bytes) throws IOException {
        TestImageFiles.addTarMember(out, name, bytes);
    }

    @Test
    void outputIsByteIdenticalWhateverTheWorkerCount() throws IOException {
        Path input = ConvertFixtures.imageFolder(tmp.resolve("in"));
        Path one = tmp.resolve("w1");
        assertEquals(0, convert(input, one, "--workers", "1", "--shard-size", "8KiB").exitCode());
        assertTrue(Json.readManifest(one).shards().size() >= 3, "several shards make the test meaningful");
        for (String workers : new String[] {"2", "5"}) {
            Path other = tmp.resolve("w" + workers);
            assertEquals(0, convert(input, other, "--workers", workers, "--shard-size", "8KiB").exitCode());
            ConvertFixtures.assertSameFiles(one, other);
        }
    }

    private static String gunzip(Path file) throws IOException {
        try (java.io.InputStream in = new java.util.zip.GZIPInputStream(Files.newInputStream(file))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void partsMergedEqualASingleRun() throws IOException {
        Path input = ConvertFixtures.imageFolder(tmp.resolve("in"));
        Path single = tmp.resolve("single");
        assertEquals(0, convert(input, single, "--shard-size", "8KiB").exitCode());
        Path[] parts = new Path[3];
        for (int i = 2; i >= 0; i--) { // any order
            parts[i] = tmp.resolve("part" + i);
            CommandTestSupport.Result r = convert(input, parts[i], "--shard-size", "8KiB", "--part", i + "/3");
            assertEquals(0, r.exitCode(), r.err());
            ConvertFixtures.assertVerifies(parts[i]);
        }
        Path merged = tmp.resolve("merged");
        CommandTestSupport.Result m = CommandTestSupport.run("merge", parts[1].toString(), parts[0].toString(),
            parts[2].toString(), "-o", merged.toString());
        assertEquals(0, m.exitCode(), m.err());
        ConvertFixtures.assertVerifies(merged);
        assertEquals(ConvertFixtures.records(single), ConvertFixtures.records(merged));
        assertEquals(Json.readManifest(single).rejected(), Json.readManifest(merged).rejected());
        assertEquals(Json.readManifest(single).classes(), Json.readManifest(merged).classes());
        // What the dataset was made from: the parts' records concatenated are the single run's.
        assertEquals(gunzip(single.resolve(InputRecord.FILE_NAME)), gunzip(merged.resolve(InputRecord.FILE_NAME)));
        // Shard bytes are not rewritten: hard links (or copies) of the parts' files.
        for (DatasetManifest.ShardEntry shard : Json.readManifest(merged).shards()) {
            Path source = null;
            for (Path part : parts) {
                source = Files.exists(part.resolve(shard.file())) ? part.resolve(shard.file()) : source;
            }
            assertTrue(source != null && java.util.Arrays.equals(Files.readAllBytes(source),
                Files.readAllBytes(merged.resolve(shard.file()))), shard.file());
        }
        CommandTestSupport.Result missing = CommandTestSupport.run("merge", parts[0].toString(), parts[2].toString(),
            "-o", tmp.resolve("bad").toString());
        assertEquals(PinshardCommand.EXIT_USAGE, missing.exitCode());
        assertTrue(missing.err().contains("part 1/3 is missing"), missing.err());
    }

    @Test
    void imagesOutsideClassFoldersAreRejectedNotDropped() throws IOException {
        byte[] png = TestImageFiles.png(TestImageFiles.gradient(30, 40, 3, 1, 0), 30, 40, 3);
        Path input = tmp.resolve("in");
        TestImageFiles.write(input.resolve("loose.png"), png);
        TestImageFiles.write(input.resolve("a/deep/x.png"), png);
        Path out = tmp.resolve("out");
        assertEquals(0, convert(input, out).exitCode());
        DatasetManifest manifest = Json.readManifest(out);
        assertEquals(List.of("a/deep/x.png|0"),
            ConvertFixtures.records(out).stream().map(r -> r.substring(0, r.indexOf('|', r.indexOf('|') + 1))).toList());
        assertEquals("loose.png", manifest.rejected().get(0).path());
        assertTrue(manifest.rejected().get(0).reason().contains("not inside a class folder"));
        Path unlabeled = tmp.resolve("unlabeled");
        assertEquals(0, convert(input, unlabeled, "--labels", "none").exitCode());
        assertEquals(2, Json.readManifest(unlabeled).records());
    }

    @Test
    void anUnfinishedConversionOfOtherInputsOrOptionsIsNotMixedIn() throws IOException {
        Path input = ConvertFixtures.imageFolder(tmp.resolve("in"));
        Path out = tmp.resolve("out");
        Files.createDirectories(out);
        // The journal's header line (CRC32C of its JSON, a space, the JSON) of a run with another fingerprint.
        byte[] header = "{\"journal\":\"pinshard-convert-journal\",\"version\":2,\"runFingerprint\":\"0000\"}"
            .getBytes(StandardCharsets.UTF_8);
        CRC32C crc = new CRC32C();
        crc.update(header);
        Files.writeString(out.resolve("convert-journal.json"), "%08x %s\n".formatted(crc.getValue(),
            new String(header, StandardCharsets.UTF_8)));
        CommandTestSupport.Result result = convert(input, out);
        assertEquals(1, result.exitCode());
        assertTrue(result.err().contains("holds an unfinished conversion of other inputs or options"), result.err());
    }

    @Test
    void rerunOfAFinishedConversionDoesNothingAndOtherOptionsAreRefused() throws IOException {
        Path input = ConvertFixtures.imageFolder(tmp.resolve("in"));
        Path out = tmp.resolve("out");
        assertEquals(0, convert(input, out).exitCode());
        byte[] manifest = Files.readAllBytes(out.resolve(DatasetManifest.FILE_NAME));
        CommandTestSupport.Result again = convert(input, out);
        assertEquals(0, again.exitCode(), again.err());
        assertTrue(again.out().contains("already complete: "), again.out());
        assertTrue(java.util.Arrays.equals(manifest, Files.readAllBytes(out.resolve(DatasetManifest.FILE_NAME))));
        CommandTestSupport.Result other = convert(input, out, "--codec", "jpeg");
        assertEquals(1, other.exitCode());
        assertTrue(other.err().contains("already holds a different dataset"), other.err());
        Files.createDirectories(tmp.resolve("busy"));
        Files.writeString(tmp.resolve("busy/keep.txt"), "someone's file");
        CommandTestSupport.Result busy = convert(input, tmp.resolve("busy"));
        assertEquals(1, busy.exitCode());
        assertTrue(busy.err().contains("is not empty"), busy.err());
        assertEquals("someone's file", Files.readString(tmp.resolve("busy/keep.txt")));
    }

    /** The run succeeded, wrote {@code records} records and rejected exactly {@code path}, for a reason containing {@code reason}. */
    private static void assertWrittenAndRejected(CommandTestSupport.Result result, Path out, int records, String path,
                                                 String reason) throws IOException {
        assertEquals(0, result.exitCode(), result.err());
        DatasetManifest manifest = Json.readManifest(out);
        assertEquals(records, manifest.records());
        assertEquals(List.of(path), manifest.rejected().stream().map(DatasetManifest.Rejected::path).toList());
        assertTrue(manifest.rejected().get(0).reason().contains(reason), manifest.rejected().get(0).reason());
    }

    private static void writePng(Path file, int height, int width, int seed) throws IOException {
        TestImageFiles.write(file, TestImageFiles.png(TestImageFiles.gradient(height, width, 3, seed, 5), height, width, 3));
    }

    /** What pinshard.write runs beside its samples: the options' verdict before INPUT exists, writing nothing. */
    @Test
    void checkJudgesTheOptionsAndOutputWithoutReadingInputOrWriting() throws IOException {
        Path notYet = tmp.resolve("samples-not-written-yet");
        Path out = tmp.resolve("out");
        CommandTestSupport.Result good = convert(notYet, out, "--codec", "jpeg", "--part", "1/4", "--check-options");
        assertEquals(0, good.exitCode(), good.err());
        assertEquals("", good.out());
        assertFalse(Files.exists(out), "--check-options wrote " + out);
        assertFalse(Files.exists(notYet));
        CommandTestSupport.Result typo = convert(notYet, out, "--shorterside", "32", "--check-options");
        assertEquals(2, typo.exitCode());
        assertTrue(typo.err().contains("Unknown option") && typo.err().contains("'--shorterside'"), typo.err());
        CommandTestSupport.Result value = convert(notYet, out, "--max-pixels", "0", "--check-options");
        assertEquals(2, value.exitCode());
        assertTrue(value.err().contains("--max-pixels must be between 1"), value.err());
        CommandTestSupport.Result part = convert(notYet, out, "--part", "4/4", "--check-options");
        assertEquals(2, part.exitCode(), part.err());
        Files.writeString(tmp.resolve("a-file"), "not a folder");
        CommandTestSupport.Result file = convert(notYet, tmp.resolve("a-file"), "--check-options");
        assertEquals(2, file.exitCode());
        assertTrue(file.err().contains("is a file, not a directory"), file.err());
        assertFalse(Files.exists(out));
        Path photos = Files.createDirectories(tmp.resolve("photos"));
        Files.writeString(photos.resolve("notes.txt"), "not a dataset");
        CommandTestSupport.Result others = convert(notYet, photos, "--check-options");
        assertEquals(1, others.exitCode(), others.err());
        assertTrue(others.err().contains("is not empty and holds no unfinished conversion"), others.err());
        assertEquals(List.of("notes.txt"), listing(photos));
        // A finished dataset may be this conversion's, found finished by a rerun: only the conversion can tell.
        Path input = ConvertFixtures.imageFolder(tmp.resolve("in"));
        assertEquals(0, convert(input, out).exitCode());
        assertEquals(0, convert(notYet, out, "--check-options").exitCode());
    }

    private static List<String> listing(Path folder) throws IOException {
        try (java.util.stream.Stream<Path> entries = Files.list(folder)) {
            return entries.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void maxPixelsRejectsLargerImagesAndIsValidated() throws IOException {
        Path input = tmp.resolve("in");
        writePng(input.resolve("cat/small.png"), 30, 30, 1);
        writePng(input.resolve("cat/large.png"), 40, 60, 2);
        assertWrittenAndRejected(convert(input, tmp.resolve("out"), "--max-pixels", "900"), tmp.resolve("out"), 1,
            "cat/large.png", "60x40 = 2400 pixels, more than the limit of 900");
        for (String bad : new String[] {"0", "-5", "1073741825"}) {
            CommandTestSupport.Result refused = convert(input, tmp.resolve("bad" + bad), "--max-pixels", bad);
            assertEquals(2, refused.exitCode(), bad);
            assertTrue(refused.err().contains("--max-pixels must be between 1 and 1073741824"), refused.err());
        }
        assertTrue(CommandTestSupport.run("convert", "--help").out().contains("--max-pixels"));
    }

    @Test
    void manifestRowsLeavingTheManifestFolderNeedAllowOutsidePaths() throws IOException {
        Path folder = tmp.resolve("data/lists");
        writePng(tmp.resolve("outside.png"), 30, 30, 1);
        writePng(folder.resolve("inside.png"), 30, 30, 2);
        Path csv = folder.resolve("list.csv");
        Files.writeString(csv, "inside.png,a\n../../outside.png,b\n");
        assertWrittenAndRejected(convert(csv, tmp.resolve("out")), tmp.resolve("out"), 1, "../../outside.png",
            "--allow-outside-paths");
        Path allowedOut = tmp.resolve("allowed");
        CommandTestSupport.Result allowed = convert(csv, allowedOut, "--allow-outside-paths");
        assertEquals(0, allowed.exitCode(), allowed.err());
        assertEquals(2, Json.readManifest(allowedOut).records());
        assertTrue(CommandTestSupport.run("convert", "--help").out().contains("--allow-outside-paths"));
    }
}
