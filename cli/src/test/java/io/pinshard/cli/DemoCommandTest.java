package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.baseline.inputs.SyntheticImages;
import io.pinshard.reader.Dataset;
import io.pinshard.format.Codec;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.reader.RecordView;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code pinshard demo} on a user's folder: converts it, races both loaders, replaces only its own dataset. */
class DemoCommandTest {
    @TempDir
    Path dir;

    @Test
    void convertsTheFolderAndReportsBothLoaders() throws IOException {
        Path input = dir.resolve("photos");
        SyntheticImages.write(input, 6, 2, 640, 400);
        Path output = dir.resolve("demo");
        for (int run = 0; run < 2; run++) { // the second run replaces the first run's dataset
            CommandTestSupport.Result result = CommandTestSupport.run("demo", "--input", input.toString(), "--output",
                output.toString(), "--images", "10", "--batch", "4", "--seconds", "0.5", "--workers", "2",
                "--progress", "none");
            assertEquals(0, result.exitCode(), result.out() + result.err());
            assertTrue(result.out().contains("converted  10 images (0 rejected)"), result.out());
            assertTrue(result.out().contains("wrote      10 320-px JPEG files"), result.out());
            // Like for like: every contestant runs on the same thread count, and both speed-ups are printed.
            assertTrue(result.out().contains("loader race: 2 thread(s) on every side"), result.out());
            for (String contestant : List.of("before: full-size JPEG files, 2 thread(s)",
                    "after: 320-px JPEG files, 2 thread(s)", "pinshard: jpeg shards, loader with 2 worker thread(s)",
                    "pinshard: raw shards, loader with 2 worker thread(s)")) {
                Matcher row = Pattern.compile(Pattern.quote(contestant) + " +([0-9,.]+) ").matcher(result.out());
                assertTrue(row.find(), contestant + " in\n" + result.out());
                assertTrue(Double.parseDouble(row.group(1).replace(",", "")) > 0, row.group());
            }
            Matcher speedup = Pattern.compile("speed-up +([0-9,.]+)x with pinshard raw shards over full-size JPEG files")
                .matcher(result.out());
            assertTrue(speedup.find(), result.out());
            assertTrue(Pattern.compile("speed-up +([0-9,.]+)x with pinshard jpeg shards over the same 320-px JPEGs as files")
                .matcher(result.out()).find(), result.out());
            assertTrue(result.out().contains("preview    " + output.resolve("preview.png")), result.out());
            assertTrue(Files.size(output.resolve("preview.png")) > 1000);
        }
        try (Dataset dataset = Dataset.open(output.resolve("dataset"))) {
            assertEquals(10, dataset.size());
            assertEquals(2, dataset.classes().size());
            assertEquals(Codec.RAW, dataset.record(0, new RecordView()).codec());
        }
        try (Dataset jpeg = Dataset.open(output.resolve("dataset-jpeg"))) {
            assertEquals(10, jpeg.size());
            RecordView view = jpeg.record(3, new RecordView());
            assertEquals(Codec.JPEG, view.codec());
            // The "after" files are the jpeg shards' own payloads, byte for byte.
            byte[] payload = new byte[view.payloadLength()];
            view.buffer().getBytes(view.payloadOffset(), payload, 0, payload.length);
            assertArrayEquals(payload, Files.readAllBytes(output.resolve("jpeg-files").resolve("c" + view.label())
                .resolve("00000003.jpg")));
        }
        try (Stream<Path> files = Files.walk(output.resolve("jpeg-files"))) {
            assertEquals(10, files.filter(f -> f.toString().endsWith(".jpg")).count());
        }
        assertTrue(new DatasetVerifier().verify(output.resolve("dataset")).isEmpty());
        assertTrue(new DatasetVerifier().verify(output.resolve("dataset-jpeg")).isEmpty());
    }

    @Test
    void refusesToDeleteAFolderThatIsNotADataset() throws IOException {
        Path output = dir.resolve("mine");
        Files.createDirectories(output.resolve("dataset"));
        Files.writeString(output.resolve("dataset").resolve("thesis.tex"), "precious");
        Path input = dir.resolve("photos");
        SyntheticImages.write(input, 2, 1, 320, 240);
        CommandTestSupport.Result result = CommandTestSupport.run("demo", "--input", input.toString(), "--output",
            output.toString(), "--images", "2", "--seconds", "0.2", "--progress", "none");
        assertEquals(PinshardCommand.EXIT_USAGE, result.exitCode(), result.out() + result.err());
        assertTrue(result.err().contains("thesis.tex"), result.err());
        assertTrue(Files.exists(output.resolve("dataset").resolve("thesis.tex")));
    }
}
