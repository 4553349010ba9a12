package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.baseline.inputs.SyntheticImages;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.DatasetVerifier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
            Matcher speedup = Pattern.compile("speed-up +([0-9,]+)x").matcher(result.out());
            assertTrue(speedup.find(), result.out());
            assertTrue(result.out().contains("naive: read + decode full-size file"), result.out());
            assertTrue(result.out().contains("pinshard: raw shards"), result.out());
            assertTrue(result.out().contains("preview    " + output.resolve("preview.png")), result.out());
            assertTrue(Files.size(output.resolve("preview.png")) > 1000);
        }
        try (Dataset dataset = Dataset.open(output.resolve("dataset"))) {
            assertEquals(10, dataset.size());
            assertEquals(2, dataset.classes().size());
        }
        assertTrue(new DatasetVerifier().verify(output.resolve("dataset")).isEmpty());
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
