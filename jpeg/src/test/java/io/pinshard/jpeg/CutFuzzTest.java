package io.pinshard.jpeg;

import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_SAMPLING_FACTOR_420;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_SAMPLING_FACTOR_422;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_SAMPLING_FACTOR_444;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The restart-interval cut's parser and writer ({@code pinshard_jpeg_cut.h}) under AddressSanitizer and UBSan:
 * {@code src/test/native/cut_fuzz.c}, built here with gcc, cuts 200,000 hostile variants of restart-marker streams
 * (truncated, markers inserted and deleted, bytes changed in the headers and the scan), each in a buffer of exactly
 * its length, into destinations of exactly their capacity. Any read or write past them aborts the run; so does a cut
 * the rules refuse or one that is not a stream. Skipped where gcc cannot build with the sanitizers.
 */
@org.junit.jupiter.api.Tag("process")
class CutFuzzTest {
    @TempDir
    Path temp;

    @Test
    void hostileStreamsNeverTakeTheCutOutsideItsBuffers() throws Exception {
        Path harness = temp.resolve("cut_fuzz");
        Process build = new ProcessBuilder("gcc", "-std=c99", "-O1", "-g", "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all", "-I", Path.of("src/main/native").toAbsolutePath().toString(),
            Path.of("src/test/native/cut_fuzz.c").toAbsolutePath().toString(), "-o", harness.toString())
            .redirectErrorStream(true).start();
        String buildOutput = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assumeTrue(build.waitFor(120, TimeUnit.SECONDS) && build.exitValue() == 0,
            "gcc cannot build the sanitized harness here: " + buildOutput);
        List<String> command = new ArrayList<>(List.of(harness.toString(), "200000", "17"));
        int[][] shapes = {{240, 320, 3, 420, 2}, {239, 333, 3, 420, 1}, {101, 77, 3, 422, 5}, {123, 211, 1, 444, 3},
            {300, 64, 3, 422, 4}, {17, 9, 3, 420, 1}};
        for (int[] shape : shapes) {
            int sampling = switch (shape[3]) {
                case 420 -> IMWRITE_JPEG_SAMPLING_FACTOR_420;
                case 422 -> IMWRITE_JPEG_SAMPLING_FACTOR_422;
                default -> IMWRITE_JPEG_SAMPLING_FACTOR_444;
            };
            Path file = temp.resolve("seed-" + command.size() + ".jpg");
            Files.write(file, RegionDecoderTest.encode(shape[0], shape[1], shape[2], false, sampling, shape[4],
                shape[0] * 7L + shape[1]));
            command.add(file.toString());
        }
        ProcessBuilder fuzz = new ProcessBuilder(command).redirectErrorStream(true);
        // Overflows are what this looks for; LeakSanitizer fails in some sandboxes (ptrace) and adds nothing here.
        fuzz.environment().put("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0");
        Process run = fuzz.start();
        String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(run.waitFor(300, TimeUnit.SECONDS), "the fuzz run did not end");
        assertEquals(0, run.exitValue(), output);
        System.out.println("cut fuzz under ASan and UBSan: " + output.trim());
        Matcher counts = Pattern.compile("iterations (\\d+) layouts (\\d+) cuts (\\d+)").matcher(output);
        assertTrue(counts.find(), output);
        // The unmutated and lightly damaged streams still parse and cut: the run reached the writer.
        assertTrue(Long.parseLong(counts.group(2)) > 40_000 && Long.parseLong(counts.group(3)) > 20_000, output);
    }
}
