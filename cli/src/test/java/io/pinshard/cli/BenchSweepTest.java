package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code pinshard bench DIR... --sweep}: a table row per dataset and worker count, the PNG chart, the answer. */
class BenchSweepTest {
    @TempDir
    Path temp;

    private Path dataset(String name, Codec codec) throws Exception {
        Path dir = temp.resolve(name);
        try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults().withClasses(List.of("x")))) {
            for (int r = 0; r < 12; r++) {
                byte[] pixels = new byte[40 * 48 * 3];
                for (int i = 0; i < pixels.length; i++) {
                    pixels[i] = (byte) (i * 7 + r * 13);
                }
                writer.appendPixels(new UnsafeBuffer(pixels), 0, 40, 48, 3, 0, "img-" + r, codec);
            }
            writer.finish();
        }
        return dir;
    }

    @Test
    void sweepsEachDatasetWritesTheChartAndAnswersTheSizingQuestion() throws Exception {
        Path raw = dataset("raw", Codec.RAW);
        Path lz4 = dataset("lz4", Codec.LZ4);
        Path chart = temp.resolve("charts/sweep.png");
        CommandTestSupport.Result result = CommandTestSupport.run("bench", raw.toString(), lz4.toString(), "--sweep",
            "--max-workers", "2", "--batch", "4", "--crop", "16", "--seconds", "0.2", "--warmup", "0",
            "--gpu-rate", "1e9", "--gpus", "3", "--chart", chart.toString());
        assertEquals(0, result.exitCode(), result.out() + result.err());
        for (String codec : List.of("raw", "lz4")) {
            for (int workers = 1; workers <= 2; workers++) {
                assertTrue(Pattern.compile("(?m)^" + codec + " \\(\\S+/" + codec + "\\) +" + workers + " +[0-9,]+ ")
                    .matcher(result.out()).find(), codec + " x " + workers + " in\n" + result.out());
            }
            // 3 GPUs at 10^9 images/s: far beyond any machine, so the answer is extrapolated and large.
            Matcher answer = Pattern.compile("3 GPUs at 1,000,000,000 images/s each need ([0-9]+) workers \\(([0-9]+) "
                + "cores\\) with these shards \\(" + codec + " .*extrapolated.*this machine has "
                + Runtime.getRuntime().availableProcessors()).matcher(result.out());
            assertTrue(answer.find(), result.out());
            assertEquals(Long.parseLong(answer.group(1)) + 3, Long.parseLong(answer.group(2)));
            assertTrue(Long.parseLong(answer.group(1)) > 1000, answer.group());
        }
        assertTrue(result.out().contains("chart  " + chart.toAbsolutePath()), result.out());
        BufferedImage png = ImageIO.read(chart.toFile());
        assertEquals(900, png.getWidth());
        assertEquals(560, png.getHeight());
    }

    @Test
    void refusesSweepOptionsWithoutSweepAndWithADevice() throws Exception {
        Path raw = dataset("raw", Codec.RAW);
        for (String[] args : List.of(new String[] {"bench", raw.toString(), raw.toString(), "--seconds", "0.1"},
                new String[] {"bench", raw.toString(), "--gpu-rate", "100", "--seconds", "0.1"},
                new String[] {"bench", raw.toString(), "--sweep", "--device", "host", "--seconds", "0.1"},
                new String[] {"bench", raw.toString(), "--sweep", "--gpu-rate", "-5", "--seconds", "0.1"})) {
            CommandTestSupport.Result result = CommandTestSupport.run(args);
            assertEquals(PinshardCommand.EXIT_USAGE, result.exitCode(), String.join(" ", args) + ": " + result.err());
            assertTrue(result.err().startsWith("pinshard bench: "), result.err());
        }
    }
}
