package io.pinshard.writer.convert;

import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imread;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_BGR2RGB;
import static org.bytedeco.opencv.global.opencv_imgproc.cvtColor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.bytedeco.opencv.opencv_core.Mat;
import org.junit.jupiter.api.Test;

/**
 * Quality guard on real photographs: the reduced-size JPEG decode (DCT scaling) followed by an
 * area resize stays within 35 dB PSNR of a full-resolution decode followed by the same resize.
 */
class ReducedDecodeQualityTest {
    static final double MIN_PSNR_DB = 35.0;

    /** The cached photos (scripts/fetch-photos.sh), or null when they are not on this machine. */
    static Path photos() {
        String configured = System.getenv("PINSHARD_PHOTOS");
        Path dir = configured != null ? Path.of(configured) : Path.of(System.getProperty("user.home"), ".cache/pinshard/photos");
        return Files.isRegularFile(dir.resolve(".complete")) ? dir : null;
    }

    @Test
    void reducedDecodeIsWithin35DbOfFullDecodeOnRealPhotos() throws IOException {
        Path photos = photos();
        assumeTrue(photos != null, "real photos not cached: run scripts/fetch-photos.sh (needs a Debian mirror)");
        List<Path> jpegs;
        try (Stream<Path> files = Files.walk(photos)) {
            jpegs = files.filter(p -> p.toString().endsWith(".jpg")).sorted().toList();
        }
        assumeTrue(!jpegs.isEmpty(), "no JPEG among the cached photos");
        ConvertOptions options = ConvertOptions.defaults().withCodec(OutputCodec.RAW).withWorkers(1);
        ImageProcessor processor = new ImageProcessor(options);
        double worst = Double.MAX_VALUE;
        int reduced = 0;
        for (Path jpeg : jpegs) {
            ConvertedImage fast = processor.convert(InputItem.file(jpeg.toString(), 0, jpeg));
            assertEquals(null, fast.rejectReason(), jpeg.toString());
            byte[] reference = fullDecodeAndAreaResize(jpeg, fast.height(), fast.width());
            double psnr = psnr(fast.payload(), reference);
            worst = Math.min(worst, psnr);
            assertTrue(psnr >= MIN_PSNR_DB, jpeg + ": PSNR " + psnr + " dB is below " + MIN_PSNR_DB);
            try (Mat header = imread(jpeg.toString(), IMREAD_COLOR)) {
                int shorter = Math.min(header.rows(), header.cols());
                reduced += (io.pinshard.jpeg.TurboJpeg.unavailableReason() == null
                    ? ImageProcessor.scaleEighths(shorter, 320, options.reducingGap()) < 8
                    : ImageProcessor.jpegFlags(shorter, 320, options.reducingGap()) != IMREAD_COLOR) ? 1 : 0;
            }
        }
        assertTrue(reduced > 0, "no photo was large enough to take the reduced path; the guard tested nothing");
        System.out.printf("reduced-decode PSNR over %d photos (%d reduced, %s): worst %.2f dB%n", jpegs.size(), reduced,
            io.pinshard.jpeg.TurboJpeg.describe(), worst);
    }

    private static byte[] fullDecodeAndAreaResize(Path jpeg, int height, int width) {
        try (Mat full = imread(jpeg.toString(), IMREAD_COLOR);
             Mat small = ShorterSideResize.resize(full, ConvertOptions.DEFAULT_SHORTER_SIDE, false); Mat rgb = new Mat()) {
            assertEquals(height, small.rows(), "a reduced decode gives the size a full decode gives");
            assertEquals(width, small.cols());
            cvtColor(small, rgb, COLOR_BGR2RGB);
            byte[] bytes = new byte[height * width * 3];
            rgb.data().get(bytes);
            return bytes;
        }
    }

    static double psnr(byte[] a, byte[] b) {
        assertEquals(a.length, b.length);
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            int d = (a[i] & 0xFF) - (b[i] & 0xFF);
            sum += d * d;
        }
        double mse = sum / a.length;
        return mse == 0 ? Double.POSITIVE_INFINITY : 10 * Math.log10(255.0 * 255.0 / mse);
    }
}
