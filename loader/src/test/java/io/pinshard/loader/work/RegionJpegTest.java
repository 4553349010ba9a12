package io.pinshard.loader.work;

import static org.bytedeco.opencv.global.opencv_core.CV_8UC1;
import static org.bytedeco.opencv.global.opencv_core.CV_8UC3;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR_RGB;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_IGNORE_ORIENTATION;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_PROGRESSIVE;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_QUALITY;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_RST_INTERVAL;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imdecode;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imencode;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imread;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.fixtures.ChildJvm;
import io.pinshard.format.Codec;
import io.pinshard.jpeg.JpegEncoder;
import io.pinshard.jpeg.RegionDecoder;
import io.pinshard.jpeg.TurboJpeg;
import io.pinshard.loader.Epoch;
import io.pinshard.loader.Loader;
import io.pinshard.loader.TestDatasets;
import io.pinshard.loader.augment.CropBox;
import io.pinshard.loader.augment.CropCorrectnessTest;
import io.pinshard.loader.options.LoaderMode;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.ring.Batch;
import io.pinshard.loader.sample.SplitMix;
import io.pinshard.memory.AddressPointer;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import io.pinshard.writer.convert.ShorterSideResize;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.agrona.concurrent.UnsafeBuffer;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jpeg loader through libjpeg-turbo's region and M/8-scaled decode against a full decode (OpenCV) plus
 * the same crop box and flip: generated and real photos, baseline and progressive, odd sizes, grey records.
 * Tolerances are the existing ones: CropCorrectnessTest's 1 grey level against the same box of a whole
 * decode at the scale the loader chose (full size included), ReducedJpegTest's 3 against a full-size decode
 * for smooth images where the box was decoded at a reduced scale (a DCT-scaled decode averages what bilinear
 * sampling of the full image picks; on detailed photos that difference is the anti-aliasing itself). And the fallback: a JVM told to use OpenCV says so once.
 */
class RegionJpegTest {
    private static final Path PHOTOS = Path.of(System.getProperty("user.home"), ".cache", "pinshard", "photos");

    @TempDir
    Path temp;

    @Test
    void theScaleIsTheSmallestPowerOfTwoEighthThatKeepsTheBox() {
        CropBox box = new CropBox();
        assertEquals(8, SampleProcessor.scaleEighths(box.set(0, 0, 300, 280, false), 224, true)); // 7/8 would do
        assertEquals(8, SampleProcessor.scaleEighths(box.set(0, 0, 447, 900, false), 224, true));
        assertEquals(4, SampleProcessor.scaleEighths(box.set(0, 0, 448, 900, false), 224, true));
        assertEquals(2, SampleProcessor.scaleEighths(box.set(0, 0, 1000, 896, false), 224, true));
        assertEquals(1, SampleProcessor.scaleEighths(box.set(0, 0, 1792, 2000, false), 224, true));
        assertEquals(8, SampleProcessor.scaleEighths(box.set(0, 0, 100, 100, false), 224, true)); // upscaled after
        assertEquals(8, SampleProcessor.scaleEighths(box.set(0, 0, 1792, 2000, false), 224, false));
    }

    @Test
    void generatedImagesCropLikeAFullDecode() throws Exception {
        assumeTurbo();
        Path dir = temp.resolve("generated");
        int[][] sizes = {{97, 131}, {240, 320}, {301, 403}, {333, 239}, {211, 123}, {64, 64}, {150, 600}};
        try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults())) {
            int record = 0;
            for (Variant variant : Variant.values()) {
                for (int[] size : sizes) {
                    for (int channels : new int[] {3, 1}) {
                        append(writer, encode(smooth(record, size[0], size[1], channels), size[0], size[1], channels,
                            variant), size[0], size[1], channels, "gen-" + record++);
                    }
                }
            }
            writer.finish();
        }
        check(dir, 32, true, true);
        check(dir, 32, false, true);
    }

    @Test
    void realPhotosCropLikeAFullDecode() throws Exception {
        assumeTurbo();
        List<Path> files = photos(6);
        assumeTrue(!files.isEmpty(), "no photos in " + PHOTOS + " (scripts/fetch-photos.sh)");
        Path dir = temp.resolve("photos");
        try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults())) {
            int record = 0;
            for (Path file : files) {
                try (Mat photo = imread(file.toString(), IMREAD_COLOR);
                     Mat small = ShorterSideResize.resize(photo, 320 + record, false)) {
                    for (Variant variant : Variant.values()) {
                        byte[] jpeg = encode(small, variant);
                        append(writer, jpeg, small.rows(), small.cols(), 3, "photo-" + record++);
                    }
                }
            }
            writer.finish();
        }
        check(dir, 64, true, false);
        check(dir, 112, true, false); // 4/8 for boxes of 224 and up
        check(dir, 96, false, false);
    }

    /**
     * Loads one TRAIN epoch (random boxes, about half flipped) and compares each crop with the same box of a
     * whole decode at the scale the loader chose (1 grey level: the region is those pixels), and, for smooth
     * images ({@code againstFullSize}), with the box of a full-size decode (3 grey levels, ReducedJpegTest's).
     */
    private static void check(Path dir, int crop, boolean scaled, boolean againstFullSize) throws Exception {
        LoaderOptions options = TestDatasets.small().crop(crop).batchSize(4).mode(LoaderMode.TRAIN).seed(5)
            .flipProbability(0.5).reducedJpegDecode(scaled).build();
        int reduced = 0;
        int flips = 0;
        int samples = 0;
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, options);
             Epoch epoch = loader.epoch(1); SampleProcessor boxes = SampleProcessor.of(options, dataset);
             RegionDecoder whole = new RegionDecoder()) {
            RecordView view = new RecordView();
            for (Batch batch : epoch) {
                try (batch) {
                    for (int i = 0; i < batch.size(); i++) {
                        int record = (int) batch.sampleId(i);
                        dataset.record(record, view);
                        CropBox box = boxes.boxFor(view, SplitMix.mix(options.sampling().seed(), 1, record));
                        int scale = SampleProcessor.scaleEighths(box, crop, scaled);
                        String where = view.key() + " " + view.height() + "x" + view.width() + "x" + view.channels()
                            + " " + box + " at " + scale + "/8";
                        reduced += scale < 8 ? 1 : 0;
                        flips += box.flip() ? 1 : 0;
                        byte[] full = fullDecode(view);
                        if (againstFullSize || scale == 8) {
                            double error = CropCorrectnessTest.meanError(batch.imageAddress(i),
                                CropCorrectnessTest.reference(full, view.width(), 3, box, crop));
                            assertTrue(error <= (scale < 8 ? 3 : 1), where + ": mean error against full size " + error);
                        }
                        if (scale < 8) {
                            int rows = RegionDecoder.scaledSide(view.height(), scale);
                            int cols = RegionDecoder.scaledSide(view.width(), scale);
                            CropBox scaledBox = new CropBox().set(box.x(), box.y(), box.width(), box.height(), box.flip());
                            SampleProcessor.scaleBox(scaledBox, view.height(), view.width(), rows, cols);
                            byte[] reference = CropCorrectnessTest.reference(wholeDecode(whole, view, scale, rows, cols),
                                cols, 3, scaledBox, crop);
                            double error = CropCorrectnessTest.meanError(batch.imageAddress(i), reference);
                            assertTrue(error <= 1, where + ": mean error against a whole decode at that scale " + error);
                        }
                        samples++;
                    }
                }
            }
        }
        assertTrue(samples > 0);
        assertTrue(flips > 0 && flips < samples, "some crops flipped: " + flips + " of " + samples);
        if (scaled) {
            assertTrue(reduced > 0, "boxes decoded at a reduced scale: " + reduced + " of " + samples);
        } else {
            assertEquals(0, reduced);
        }
    }

    private static byte[] wholeDecode(RegionDecoder decoder, RecordView view, int scale, int rows, int cols) {
        java.nio.ByteBuffer source = java.nio.ByteBuffer.allocateDirect(view.payloadLength());
        java.nio.ByteBuffer out = java.nio.ByteBuffer.allocateDirect(rows * cols * 3);
        view.copyPayload(0, view.payloadLength(), org.agrona.BufferUtil.address(source));
        assertEquals(RegionDecoder.Status.OK, decoder.decodeWhole(org.agrona.BufferUtil.address(source),
            view.payloadLength(), scale, rows, cols, RegionDecoder.Format.RGB, org.agrona.BufferUtil.address(out),
            cols * 3L, out.capacity()), decoder.problem());
        byte[] pixels = new byte[out.capacity()];
        out.get(pixels);
        return pixels;
    }

    @org.junit.jupiter.api.Tag("process")
    @Test
    void aJvmToldToUseOpenCvFallsBackWithOneLogLine() throws Exception {
        Path dir = TestDatasets.write(temp.resolve("fallback"), 24, Codec.JPEG, 3, 1 << 20);
        List<String> options = new ArrayList<>(ChildJvm.pinshardFlags());
        options.add("-D" + TurboJpeg.PROPERTY + "=opencv");
        Process child = new ProcessBuilder(ChildJvm.command(options, OpenCvFallbackChild.class, dir.toString()))
            .redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(120, TimeUnit.SECONDS), "child ran too long");
        assertEquals(0, child.exitValue(), output);
        long lines = output.lines().filter(line -> line.contains("pinshard decodes JPEG with OpenCV")).count();
        assertEquals(1, lines, output);
        assertTrue(output.contains("-D" + TurboJpeg.PROPERTY + "=opencv"), output);
        assertTrue(output.contains("decoder: OpenCV"), output);
        assertTrue(output.contains("samples: 24"), output);
    }

    /** The child of the fallback test: loads a jpeg dataset with two workers, decodes records, prints what it used. */
    public static final class OpenCvFallbackChild {
        public static void main(String[] args) throws Exception {
            LoaderOptions options = TestDatasets.small().build();
            int samples = 0;
            try (Dataset dataset = Dataset.open(Path.of(args[0])); Loader loader = Loader.open(dataset, options);
                 Epoch epoch = loader.epoch(0); io.pinshard.reader.RecordDecoder decoder =
                     new io.pinshard.reader.RecordDecoder(true)) {
                for (Batch batch : epoch) {
                    try (batch) {
                        samples += batch.size();
                    }
                }
                RecordView view = dataset.record(0, new RecordView());
                java.nio.ByteBuffer out = java.nio.ByteBuffer.allocateDirect(view.decodedBytes());
                decoder.decode(view, new UnsafeBuffer(out), 0);
            }
            System.out.println("decoder: " + TurboJpeg.describe());
            System.out.println("samples: " + samples);
        }
    }

    private static void assumeTurbo() {
        assumeTrue(TurboJpeg.unavailableReason() == null, "no libjpeg-turbo binding: " + TurboJpeg.unavailableReason());
    }

    static List<Path> photos(int limit) throws IOException {
        if (!Files.isDirectory(PHOTOS)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(PHOTOS)) {
            return walk.filter(p -> p.toString().endsWith(".jpg")).sorted().limit(limit).toList();
        }
    }

    private static void append(DatasetWriter writer, byte[] jpeg, int height, int width, int channels, String key)
        throws IOException {
        writer.appendPayload(Codec.JPEG, new UnsafeBuffer(jpeg), 0, jpeg.length, height, width, channels, 0, key);
    }

    private static byte[] smooth(int record, int height, int width, int channels) {
        byte[] pixels = new byte[height * width * channels];
        SplittableRandom random = new SplittableRandom(record);
        double fx = 70 + random.nextInt(20);
        double fy = 55 + random.nextInt(20);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                for (int c = 0; c < channels; c++) {
                    double v = 128 + 90 * Math.sin(x / fx + c + record) * Math.cos(y / fy - c) + 20 * c;
                    // Low frequencies only (ReducedJpegTest's): DCT scaling averages what bilinear sampling picks.
                    pixels[(y * width + x) * channels + c] = (byte) Math.max(0, Math.min(255, (int) v));
                }
            }
        }
        return pixels;
    }

    /** Baseline, baseline with the restart markers convert writes (decoded through the cut), progressive. */
    private enum Variant { BASELINE, RESTART_MARKERS, PROGRESSIVE }

    private static byte[] encode(byte[] pixels, int height, int width, int channels, Variant variant) {
        try (BytePointer data = new BytePointer(pixels);
             Mat image = new Mat(height, width, channels == 1 ? CV_8UC1 : CV_8UC3, data)) {
            return encode(image, variant);
        }
    }

    private static byte[] encode(Mat image, Variant variant) {
        int restart = variant == Variant.RESTART_MARKERS
            ? JpegEncoder.restartInterval(image.cols(), image.channels(), JpegEncoder.DEFAULT_RESTART_MCUS) : 0;
        try (BytePointer out = new BytePointer();
             IntPointer params = new IntPointer(IMWRITE_JPEG_QUALITY, 90, IMWRITE_JPEG_PROGRESSIVE,
                 variant == Variant.PROGRESSIVE ? 1 : 0, IMWRITE_JPEG_RST_INTERVAL, restart)) {
            assertTrue(imencode(".jpg", image, out, params));
            byte[] bytes = new byte[(int) out.limit()];
            out.get(bytes);
            return bytes;
        }
    }

    /** RGB (grey expanded) at full size, as OpenCV decodes it. */
    private static byte[] fullDecode(RecordView view) {
        try (Mat encoded = new Mat(1, view.payloadLength(), CV_8UC1,
                new AddressPointer().at(view.payloadAddress(), view.payloadLength()));
             Mat rgb = imdecode(encoded, IMREAD_COLOR_RGB | IMREAD_IGNORE_ORIENTATION)) {
            byte[] pixels = new byte[view.height() * view.width() * 3];
            rgb.data().get(pixels);
            return pixels;
        }
    }
}
