package io.pinshard.writer.convert;

import static org.bytedeco.opencv.global.opencv_core.CV_8UC1;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imdecode;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.junit.jupiter.api.Test;

/**
 * Measures (prints, asserts nothing) what the converter's input checks cost per image on the cached
 * real photos, single-threaded, next to a whole conversion of the same image: the header and
 * structure walk ({@link ImageHeader#read}, for JPEG {@code JpegFrame.inspect} over all scan data),
 * the fill-grey corner test, and the javax.imageio confirmation that runs only when a corner is
 * exactly grey. Off by default; run on a quiet machine with
 * {@code mvn -pl writer -am test -Dtest=ConvertCheckCost -Dsurefire.failIfNoSpecifiedTests=false -Dpinshard.measureConvertChecks=true}.
 */
class ConvertCheckCost {
    private static final int PHOTOS = 20;
    private static final int ROUNDS = 5;

    @Test
    void printCheckCostPerPhoto() throws IOException {
        assumeTrue(Boolean.getBoolean("pinshard.measureConvertChecks"), "set -Dpinshard.measureConvertChecks=true to measure");
        Path photos = ReducedDecodeQualityTest.photos();
        assumeTrue(photos != null, "real photos not cached");
        List<Path> jpegs;
        try (Stream<Path> files = Files.walk(photos)) {
            jpegs = files.filter(p -> p.toString().endsWith(".jpg")).sorted().limit(PHOTOS).toList();
        }
        List<ByteBuffer> inputs = new ArrayList<>();
        for (Path jpeg : jpegs) {
            byte[] bytes = Files.readAllBytes(jpeg);
            inputs.add(ByteBuffer.allocateDirect(bytes.length).put(bytes).flip());
        }
        ImageProcessor processor = new ImageProcessor(ConvertOptions.defaults().withCodec(OutputCodec.JPEG).withWorkers(1));
        long header = 0;
        long corner = 0;
        long convert = 0;
        long confirm = 0;
        int suspicious = 0;
        for (int round = 0; round <= ROUNDS; round++) { // round 0 warms up
            for (int i = 0; i < inputs.size(); i++) {
                ByteBuffer data = inputs.get(i);
                long t0 = System.nanoTime();
                ImageHeader.read(data);
                long t1 = System.nanoTime();
                processor.convert(InputItem.file(jpegs.get(i).toString(), 0, jpegs.get(i)));
                long t2 = System.nanoTime();
                boolean grey;
                try (BytePointer bytes = new BytePointer(data); Mat encoded = new Mat(1, data.limit(), CV_8UC1, bytes);
                     Mat decoded = imdecode(encoded, org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_COLOR_4)) {
                    long t3 = System.nanoTime();
                    grey = JpegWarnings.mayHaveFilledGrey(decoded);
                    corner += round > 0 ? System.nanoTime() - t3 : 0;
                }
                long t4 = System.nanoTime();
                JpegWarnings.firstWarning(data);
                long t5 = System.nanoTime();
                if (round > 0) {
                    header += t1 - t0;
                    convert += t2 - t1;
                    confirm += t5 - t4;
                    suspicious += grey ? 1 : 0;
                }
            }
        }
        double n = (double) ROUNDS * inputs.size();
        System.out.printf(Locale.ROOT, "convert checks on %d photos x %d rounds, one thread (ms per image):%n"
                + "  header + structure walk (JpegFrame.inspect): %.3f%n  corner grey test: %.4f%n"
                + "  whole conversion (includes both): %.2f%n  check share of conversion: %.2f %%%n"
                + "  javax.imageio confirmation, when a corner is exactly grey: %.2f (triggered on %d of %d)%n",
            inputs.size(), ROUNDS, header / n / 1e6, corner / n / 1e6, convert / n / 1e6, 100.0 * (header + corner) / convert,
            confirm / n / 1e6, suspicious / ROUNDS, inputs.size());
    }
}
