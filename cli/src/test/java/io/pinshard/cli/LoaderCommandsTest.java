package io.pinshard.cli;

import static org.bytedeco.opencv.global.opencv_imgcodecs.imread;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pinshard.format.Codec;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class LoaderCommandsTest {
    @TempDir
    Path temp;

    private Path dataset() throws Exception {
        Path dir = temp.resolve("data");
        try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults().withClasses(List.of("x", "y")))) {
            for (int r = 0; r < 24; r++) {
                int h = 30 + r, w = 40 + 2 * r;
                byte[] pixels = new byte[h * w * 3];
                for (int i = 0; i < pixels.length; i++) {
                    pixels[i] = (byte) (i * 7 + r * 13);
                }
                writer.appendPixels(new UnsafeBuffer(pixels), 0, h, w, 3, r % 2, "img-" + r, Codec.RAW);
            }
            writer.finish();
        }
        return dir;
    }

    private static String[] run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine command = PinshardCommand.newCommandLine();
        command.setOut(new PrintWriter(out));
        command.setErr(new PrintWriter(err));
        int status = command.execute(args);
        return new String[] {Integer.toString(status), out.toString(), err.toString()};
    }

    @Test
    void benchPrintsOneJsonObjectWithTheFigures() throws Exception {
        String[] result = run("bench", dataset().toString(), "--batch", "5", "--crop", "16", "--workers", "2",
            "--seconds", "0.3", "--warmup", "0.1", "--order", "quasi-random", "--json");
        assertEquals("0", result[0], result[2]);
        JsonNode json = new ObjectMapper().readTree(result[1]);
        for (String key : List.of("images_per_s", "mb_per_s", "data_wait_pct", "heap_bytes_per_batch", "workers",
            "batch", "crop")) {
            assertTrue(json.has(key), key + " in " + result[1]);
        }
        assertEquals(5, json.get("batch").asInt());
        assertEquals(16, json.get("crop").asInt());
        assertEquals(2, json.get("workers").asInt());
        assertEquals(1024, json.get("window").asInt());
        assertEquals(16, json.get("interleave").asInt(), "small records: the automatic interleave's most");
        assertTrue(json.get("images_per_s").asDouble() > 0);
        assertEquals(json.get("images").asDouble() * 16 * 16 * 3 / 1e6 / json.get("seconds").asDouble(),
            json.get("mb_per_s").asDouble(), 1e-6);
        assertEquals(json.get("seconds").asDouble() * 1e3 / json.get("batches").asDouble(),
            json.get("ms_per_batch").asDouble(), 1e-6);
        assertTrue(json.get("warmup_s").asDouble() >= 0.1 && json.has("heap_settled"), result[1]);
        // Settled only beside a settled figure (it said true beside 67 KB per batch).
        assertEquals(json.get("heap_bytes_per_batch").asDouble() <= 64, json.get("heap_settled").asBoolean(),
            result[1]);
    }

    /** A step faster than the loader: the data-wait to expect, and what to change; bad values are usage errors. */
    @Test
    void benchSaysWhenTheLoaderCannotKeepUpWithTheStep() throws Exception {
        String data = dataset().toString();
        String[] result = run("bench", data, "--batch", "5", "--crop", "16", "--workers", "1",
            "--seconds", "0.2", "--warmup", "0", "--step-ms", "0.000001");
        assertEquals("0", result[0], result[2]);
        assertTrue(result[1].contains("does not keep up") && result[1].contains("more --workers (now 1)"), result[1]);
        assertTrue(result[1].contains("expected_data_wait_pct") && !result[1].contains("\ndata_wait_pct"), result[1]);
        assertEquals("2", run("bench", data, "--step-ms", "0")[0]);
        assertEquals("2", run("bench", data, "--warmup", "soon")[0]);
    }

    @Test
    void benchSaysWhichPayloadCrcsItChecked() throws Exception {
        String data = dataset().toString();
        for (String[] mode : new String[][] {{"auto", "auto (lz4, jpeg checked)"},
                {"always", "always (raw, lz4, jpeg, yuv420 checked)"}, {"never", "never (none checked)"}}) {
            String[] result = run("bench", data, "--batch", "5", "--crop", "16", "--workers", "1",
                "--seconds", "0.1", "--warmup", "0", "--crc", mode[0], "--json");
            assertEquals("0", result[0], result[2]);
            assertEquals(mode[1], new ObjectMapper().readTree(result[1]).get("crc_check").asText(), result[1]);
        }
        String[] bad = run("bench", data, "--seconds", "0.1", "--crc", "sometimes");
        assertTrue(!"0".equals(bad[0]) && bad[2].contains("sometimes"), bad[2]);
    }

    /** A changed byte inside an lz4 or jpeg payload ends bench and preview with an error naming the record, by default. */
    @Test
    void benchAndPreviewRefuseACorruptCompressedPayloadByDefault() throws Exception {
        for (Codec codec : List.of(Codec.LZ4, Codec.JPEG)) {
            Path dir = temp.resolve("corrupt-" + codec.label());
            try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults().withClasses(List.of("x")))) {
                java.util.Random random = new java.util.Random(codec.id());
                for (int r = 0; r < 12; r++) {
                    byte[] pixels = new byte[48 * 64 * 3];
                    random.nextBytes(pixels);
                    if (codec == Codec.LZ4) {
                        writer.appendPixels(new UnsafeBuffer(pixels), 0, 48, 64, 3, 0, "img-" + r, Codec.LZ4);
                        continue;
                    }
                    try (org.bytedeco.javacpp.BytePointer raw = new org.bytedeco.javacpp.BytePointer(pixels);
                         Mat image = new Mat(48, 64, org.bytedeco.opencv.global.opencv_core.CV_8UC3, raw);
                         org.bytedeco.javacpp.BytePointer jpeg = new org.bytedeco.javacpp.BytePointer()) {
                        org.bytedeco.opencv.global.opencv_imgcodecs.imencode(".jpg", image, jpeg);
                        byte[] bytes = new byte[(int) jpeg.limit()];
                        jpeg.get(bytes);
                        writer.appendPayload(Codec.JPEG, new UnsafeBuffer(bytes), 0, bytes.length, 48, 64, 3, 0, "img-" + r);
                    }
                }
                writer.finish();
            }
            String shard = flipMiddlePayloadByte(dir, 5);
            String[] bench = run("bench", dir.toString(), "--batch", "4", "--crop", "16", "--workers", "1",
                "--seconds", "1", "--warmup", "0", "--order", "sequential");
            assertTrue(!"0".equals(bench[0]) && bench[2].contains(shard) && bench[2].contains("CRC32C"),
                codec + ": bench exit " + bench[0] + ": " + bench[2]);
            String[] preview = run("preview", dir.toString(), "--out", temp.resolve(codec.label() + ".png").toString(),
                "--count", "12", "--crop", "16", "--epochs", "1");
            assertTrue(!"0".equals(preview[0]) && preview[2].contains(shard) && preview[2].contains("CRC32C"),
                codec + ": preview exit " + preview[0] + ": " + preview[2]);
        }
    }

    /** Flips the middle byte of record {@code record}'s payload (entropy-coded data, lz4 sequences); returns its shard. */
    private static String flipMiddlePayloadByte(Path dir, long record) throws Exception {
        String shard;
        long offset;
        try (io.pinshard.reader.Dataset dataset = io.pinshard.reader.Dataset.open(dir)) {
            io.pinshard.reader.RecordView view = dataset.record(record, new io.pinshard.reader.RecordView());
            shard = view.shard().name();
            offset = view.payloadOffset() + view.payloadLength() / 2;
        }
        try (java.io.RandomAccessFile file = new java.io.RandomAccessFile(dir.resolve(shard).toFile(), "rw")) {
            file.seek(offset);
            int b = file.read();
            file.seek(offset);
            file.write(b ^ 0x10);
        }
        return shard;
    }

    @Test
    void benchRefusesWhatIsNotADataset() {
        String[] result = run("bench", temp.resolve("missing").toString(), "--seconds", "0.1");
        assertEquals(Integer.toString(PinshardCommand.EXIT_USAGE), result[0]);
        assertTrue(result[2].contains("missing: does not exist"), result[2]);
    }

    @Test
    void previewWritesAContactSheet() throws Exception {
        Path sheet = temp.resolve("sheet.png");
        String[] result = run("preview", dataset().toString(), "--out", sheet.toString(), "--count", "6", "--crop", "32",
            "--epochs", "2");
        assertEquals("0", result[0], result[2]);
        try (Mat image = imread(sheet.toString())) {
            int line = PreviewCommand.LINE;
            assertEquals(4 + 2 * line + 2 + 4 * (line + 32 + 4), image.rows(),
                "record captions, then stored row, two training rows, one eval row, each under its caption");
            assertEquals(6 * (32 + 4) + 4, image.cols());
        }
    }

    /** A dataset of 12 records whose caption field says "caption of r", tags {r, r}. */
    private Path datasetWithFields() throws Exception {
        Path dir = temp.resolve("fields");
        if (java.nio.file.Files.exists(dir.resolve("manifest.json"))) {
            return dir;
        }
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withClasses(List.of("x", "y")).withFields(List.of(
            io.pinshard.format.FieldSchema.variable("caption", io.pinshard.format.FieldType.UTF8),
            io.pinshard.format.FieldSchema.fixed("tags", io.pinshard.format.FieldType.INT32, 2)));
        try (DatasetWriter writer = new DatasetWriter(dir, options)) {
            io.pinshard.writer.FieldValues values = writer.newFieldValues();
            for (int r = 0; r < 12; r++) {
                byte[] pixels = new byte[30 * 40 * 3];
                java.util.Arrays.fill(pixels, (byte) r);
                values.clear().utf8("caption", "caption of " + r).int32("tags", r, r);
                writer.appendPixels(new UnsafeBuffer(pixels), 0, 30, 40, 3, r % 2, "img-" + r, Codec.RAW, values);
            }
            writer.finish();
        }
        return dir;
    }

    @Test
    void previewCaptionsEachColumnWithAChosenField() throws Exception {
        Path sheet = temp.resolve("captioned.png");
        String[] result = run("preview", datasetWithFields().toString(), "--out", sheet.toString(), "--count", "4",
            "--crop", "32", "--epochs", "1", "--caption", "caption");
        assertEquals("0", result[0], result[2]);
        for (String line : result[1].split("\n")) {
            if (line.contains("column")) {
                String record = line.replaceAll(".*record (\\d+) .*", "$1");
                assertTrue(line.endsWith("caption caption of " + record), line);
            }
        }
        try (Mat image = imread(sheet.toString())) {
            int line = PreviewCommand.LINE;
            assertEquals(4 + 3 * line + 2 + 3 * (line + 32 + 4), image.rows(), "a third caption line per column");
        }
        String[] tags = run("preview", datasetWithFields().toString(), "--out", sheet.toString(), "--count", "2",
            "--crop", "32", "--epochs", "0", "--caption", "tags");
        assertTrue(tags[1].matches("(?s).*record (\\d+) .*tags \\1,\\1.*"), tags[1]);
        String[] unknown = run("preview", datasetWithFields().toString(), "--out", sheet.toString(), "--caption", "text");
        assertEquals(Integer.toString(PinshardCommand.EXIT_USAGE), unknown[0]);
        assertTrue(unknown[2].contains("has no field text") && unknown[2].contains("caption:utf8"), unknown[2]);
    }

    @Test
    void benchCarriesFieldsAndRefusesOnesTheDatasetLacks() throws Exception {
        String data = datasetWithFields().toString();
        String[] result = run("bench", data, "--batch", "4", "--crop", "16", "--workers", "2", "--seconds", "0.3",
            "--warmup", "0.1", "--fields", "caption,tags", "--json");
        assertEquals("0", result[0], result[2]);
        String[] tooSmall = run("bench", data, "--batch", "4", "--crop", "16", "--workers", "1", "--seconds", "0.3",
            "--warmup", "0.1", "--fields", "caption", "--field-bytes", "4");
        assertEquals("1", tooSmall[0], tooSmall[2]);
        assertTrue(tooSmall[2].contains("field caption holds") && tooSmall[2].contains("--field-bytes"), tooSmall[2]);
        String[] missing = run("bench", data, "--seconds", "0.1", "--fields", "boxes");
        assertEquals(Integer.toString(PinshardCommand.EXIT_USAGE), missing[0], missing[2]);
    }

    @Test
    void benchMovesBatchesThroughTheHostDeviceBackend() throws Exception {
        String[] result = run("bench", dataset().toString(), "--batch", "5", "--crop", "16", "--workers", "2",
            "--seconds", "0.3", "--warmup", "0.1", "--device", "host", "--gpu-augment", "--json");
        assertEquals("0", result[0], result[2]);
        JsonNode json = new ObjectMapper().readTree(result[1]);
        assertEquals("host", json.get("device").asText());
        assertTrue(json.get("device_augment").asBoolean());
        assertTrue(json.get("images_per_s").asDouble() > 0);
        assertTrue(json.has("device_data_wait_pct"), result[1]);
    }

    @Test
    void benchOnCudaWithoutAGpuSaysWhy() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeFalse(io.pinshard.cuda.runtime.CudaAvailability.isAvailable(),
            "a GPU is present");
        String data = dataset().toString();
        String[] result = run("bench", data, "--seconds", "0.1", "--device", "cuda");
        assertEquals("1", result[0]);
        assertTrue(result[2].contains("CUDA unavailable") && result[2].contains("--device host"), result[2]);
        assertTrue(!result[2].contains("UnsatisfiedLinkError"), result[2]);
        String[] bad = run("bench", data, "--seconds", "0.1", "--device", "tpu");
        assertEquals(Integer.toString(PinshardCommand.EXIT_USAGE), bad[0]);
        String[] augmentAlone = run("bench", data, "--seconds", "0.1", "--gpu-augment");
        assertEquals(Integer.toString(PinshardCommand.EXIT_USAGE), augmentAlone[0]);
    }
}
