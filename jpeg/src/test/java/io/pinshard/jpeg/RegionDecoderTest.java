package io.pinshard.jpeg;

import static org.bytedeco.opencv.global.opencv_core.CV_8UC1;
import static org.bytedeco.opencv.global.opencv_core.CV_8UC3;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR_RGB;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_GRAYSCALE;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_PROGRESSIVE;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_QUALITY;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_RST_INTERVAL;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_SAMPLING_FACTOR;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_SAMPLING_FACTOR_420;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_SAMPLING_FACTOR_422;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_SAMPLING_FACTOR_444;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_IGNORE_ORIENTATION;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_GRAYSCALE_2;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_GRAYSCALE_4;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imdecode;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imencode;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.jpeg.RegionDecoder.Format;
import io.pinshard.jpeg.RegionDecoder.Status;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.agrona.BufferUtil;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** libjpeg-turbo's region and scaled decode against OpenCV's whole-image decode of the same streams. */
class RegionDecoderTest {
    @BeforeAll
    static void needsTheBinding() {
        assumeTrue(TurboJpeg.unavailableReason() == null, "no libjpeg-turbo binding: " + TurboJpeg.unavailableReason());
    }

    static byte[] encode(int height, int width, int channels, boolean progressive, int sampling, long seed) {
        return encode(height, width, channels, progressive, sampling, 0, seed);
    }

    /** A stream of smooth waves plus noise, restart markers every {@code restart} MCUs (0: none). */
    static byte[] encode(int height, int width, int channels, boolean progressive, int sampling, int restart,
        long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        try (Mat image = new Mat(height, width, channels == 1 ? CV_8UC1 : CV_8UC3)) {
            BytePointer data = image.data();
            double fx = 20 + random.nextInt(60);
            double fy = 15 + random.nextInt(50);
            for (int y = 0; y < height; y++) {
                for (int x = 0; x < width; x++) {
                    for (int c = 0; c < channels; c++) {
                        double v = 128 + 80 * Math.sin(x / fx + c) * Math.cos(y / fy - c) + random.nextInt(24) - 12;
                        data.put((long) (y * width + x) * channels + c, (byte) Math.max(0, Math.min(255, (int) v)));
                    }
                }
            }
            try (BytePointer out = new BytePointer(); IntPointer params = new IntPointer(IMWRITE_JPEG_QUALITY, 90,
                IMWRITE_JPEG_PROGRESSIVE, progressive ? 1 : 0, IMWRITE_JPEG_SAMPLING_FACTOR, sampling,
                IMWRITE_JPEG_RST_INTERVAL, restart)) {
                assertTrue(imencode(".jpg", image, out, params));
                byte[] bytes = new byte[(int) out.limit()];
                out.get(bytes);
                return bytes;
            }
        }
    }

    static byte[] opencvDecode(byte[] jpeg, int flags) {
        try (BytePointer in = new BytePointer(jpeg); Mat encoded = new Mat(1, jpeg.length, CV_8UC1, in);
             Mat decoded = imdecode(encoded, flags | IMREAD_IGNORE_ORIENTATION)) {
            byte[] pixels = new byte[(int) (decoded.total() * decoded.channels())];
            decoded.data().get(pixels);
            return pixels;
        }
    }

    /**
     * Restart intervals that divide a row's MCUs (columns 6, 7: the interval, and whether it divides) are cut
     * ({@link RegionDecoder#streamBytes()} below the stream's length); others decode as they are. Either way the
     * region's pixels are those of the whole decode.
     */
    @ParameterizedTest(name = "{0}x{1}x{2} progressive={3} sampling={4} restart={5}")
    @CsvSource({"240,320,3,false,420,0,false", "239,333,3,true,420,0,false", "101,77,3,false,422,0,false",
        "200,150,3,true,444,0,false", "123,211,1,false,444,0,false", "97,131,1,true,444,0,false",
        "240,320,3,false,420,2,true", "239,333,3,false,420,1,true", "101,77,3,false,422,5,true",
        "123,211,1,false,444,3,true", "200,150,3,false,444,2,false", "97,131,3,false,420,4,false",
        "64,1000,3,false,420,5,false", "300,64,3,false,422,4,true"})
    void regionsAtEveryScaleAreTheSamePixelsAsAWholeDecodeAtThatScale(int height, int width, int channels,
        boolean progressive, int samplingCode, int restart, boolean cuttable) {
        int sampling = switch (samplingCode) {
            case 420 -> IMWRITE_JPEG_SAMPLING_FACTOR_420;
            case 422 -> IMWRITE_JPEG_SAMPLING_FACTOR_422;
            default -> IMWRITE_JPEG_SAMPLING_FACTOR_444;
        };
        byte[] jpeg = encode(height, width, channels, progressive, sampling, restart, height * 31L + width);
        ByteBuffer source = direct(jpeg);
        SplittableRandom random = new SplittableRandom(7);
        int cut = 0;
        try (RegionDecoder decoder = new RegionDecoder(); RegionDecoder uncut = new RegionDecoder(0, false)) {
            // Whole image at 8/8 is what OpenCV decodes (the same libjpeg-turbo IDCT and upsampling).
            Format format = channels == 1 ? Format.GREY : Format.RGB;
            byte[] whole = wholeDecode(decoder, source, jpeg.length, 8, height, width, format);
            byte[] expected = opencvDecode(jpeg, channels == 1 ? IMREAD_GRAYSCALE : IMREAD_COLOR_RGB);
            assertEquals(0, maxDifference(whole, expected), "8/8 whole decode against OpenCV's");
            assertEquals(progressive, decoder.progressive());
            assertEquals(channels, decoder.components());
            for (int scale = 1; scale <= 8; scale++) {
                int rows = RegionDecoder.scaledSide(height, scale);
                int cols = RegionDecoder.scaledSide(width, scale);
                byte[] scaled = wholeDecode(decoder, source, jpeg.length, scale, rows, cols, Format.RGB);
                assertEquals(cols, decoder.scaledWidth(), "scale " + scale);
                assertEquals(rows, decoder.scaledHeight(), "scale " + scale);
                for (int trial = 0; trial < 6; trial++) {
                    int w = 1 + random.nextInt(cols);
                    int h = 1 + random.nextInt(rows);
                    int x = random.nextInt(cols - w + 1);
                    int y = random.nextInt(rows - h + 1);
                    cut += checkRegion(decoder, uncut, source, jpeg.length, scale, x, y, w, h, scaled, cols) ? 1 : 0;
                }
                cut += checkRegion(decoder, uncut, source, jpeg.length, scale, cols - 1, rows - 1, 1, 1, scaled, cols)
                    ? 1 : 0;
                cut += checkRegion(decoder, uncut, source, jpeg.length, scale, 0, 0, 1, 1, scaled, cols) ? 1 : 0;
            }
            // Every scale's 1x1 corners at least are cut when the intervals divide the rows; never else.
            assertTrue(cuttable ? cut >= 16 : cut == 0, cut + " of 64 regions cut");
        } finally {
            BufferUtil.free(source);
        }
    }

    @Test
    void twoEighthsIsOpenCvsQuarterAndFourEighthsItsHalf() {
        byte[] jpeg = encode(301, 403, 3, true, IMWRITE_JPEG_SAMPLING_FACTOR_420, 3);
        ByteBuffer source = direct(jpeg);
        try (RegionDecoder decoder = new RegionDecoder()) {
            byte[] half = wholeDecode(decoder, source, jpeg.length, 4, 151, 202, Format.RGB);
            assertEquals(0, maxDifference(half, opencvDecode(jpeg, IMREAD_REDUCED_GRAYSCALE_2 | IMREAD_COLOR_RGB)));
        } finally {
            BufferUtil.free(source);
        }
    }

    /**
     * Checks one region against the whole decode, and when libjpeg read a cut of the stream, against the same region
     * decoded without the cut ({@code uncut}): exactly the same pixels. True when it was cut.
     */
    private static boolean checkRegion(RegionDecoder decoder, RegionDecoder uncut, ByteBuffer source, int length,
        int scale, int x, int y, int w, int h, byte[] scaled, int cols) {
        int stride = cols * 3 + 5;
        ByteBuffer out = ByteBuffer.allocateDirect(stride * h + 64);
        Status status = decoder.decode(BufferUtil.address(source), length, scale, x, y, w, h, Format.RGB,
            BufferUtil.address(out), stride, stride * h);
        String where = "scale " + scale + " region " + w + "x" + h + " at (" + x + ", " + y + ")";
        assertEquals(Status.OK, status, where + ": " + decoder.problem());
        int rx = decoder.regionX();
        assertTrue(rx <= x && rx + decoder.regionWidth() >= x + w, where + ": decoded " + rx + "+" + decoder.regionWidth());
        for (int i = stride * h; i < stride * h + 64; i++) {
            assertEquals(0, out.get(i), where + ": wrote past the capacity");
        }
        int worst = 0;
        for (int row = 0; row < h; row++) {
            for (int col = 0; col < w * 3; col++) {
                int got = out.get(row * stride + (x - rx) * 3 + col) & 0xFF;
                int want = scaled[((y + row) * cols + x) * 3 + col] & 0xFF;
                worst = Math.max(worst, Math.abs(got - want));
            }
        }
        // Upsampled chroma next to a skipped or cropped edge may round differently by a level or two.
        assertTrue(worst <= 2, where + ": max difference " + worst);
        boolean wasCut = decoder.streamBytes() < length;
        if (wasCut) {
            ByteBuffer plain = ByteBuffer.allocateDirect(stride * h);
            assertEquals(Status.OK, uncut.decode(BufferUtil.address(source), length, scale, x, y, w, h, Format.RGB,
                BufferUtil.address(plain), stride, stride * h), where + " without the cut");
            assertEquals(length, uncut.streamBytes());
            int px = uncut.regionX();
            for (int row = 0; row < h; row++) {
                for (int col = 0; col < w * 3; col++) {
                    assertEquals(plain.get(row * stride + (x - px) * 3 + col), out.get(row * stride + (x - rx) * 3 + col),
                        where + ": the cut's pixel differs from the uncut decode's at row " + row + ", byte " + col);
                }
            }
        }
        return wasCut;
    }

    private static byte[] wholeDecode(RegionDecoder decoder, ByteBuffer source, int length, int scale, int rows,
        int cols, Format format) {
        int stride = cols * format.channels;
        ByteBuffer out = ByteBuffer.allocateDirect(stride * rows);
        Status status = decoder.decodeWhole(BufferUtil.address(source), length, scale, rows, cols, format,
            BufferUtil.address(out), stride, out.capacity());
        assertEquals(Status.OK, status, decoder.problem());
        byte[] pixels = new byte[out.capacity()];
        out.get(pixels);
        return pixels;
    }

    static int maxDifference(byte[] a, byte[] b) {
        assertEquals(a.length, b.length, "sizes");
        int worst = 0;
        for (int i = 0; i < a.length; i++) {
            worst = Math.max(worst, Math.abs((a[i] & 0xFF) - (b[i] & 0xFF)));
        }
        return worst;
    }

    static ByteBuffer direct(byte[] bytes) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(Math.max(64, bytes.length));
        buffer.put(bytes).clear();
        return buffer;
    }

    @Test
    void aDestinationTooSmallIsRefusedBeforeAnyRowIsWritten() {
        byte[] jpeg = encode(64, 64, 3, false, IMWRITE_JPEG_SAMPLING_FACTOR_420, 1);
        ByteBuffer source = direct(jpeg);
        ByteBuffer out = ByteBuffer.allocateDirect(64 * 64 * 3);
        try (RegionDecoder decoder = new RegionDecoder()) {
            long at = BufferUtil.address(out);
            assertEquals(Status.ARGUMENT, decoder.decode(BufferUtil.address(source), jpeg.length, 8, 0, 0, 64, 64,
                Format.RGB, at, 64 * 3, 64 * 3 * 64 - 1));
            assertEquals(Status.ARGUMENT, decoder.decode(BufferUtil.address(source), jpeg.length, 8, 0, 0, 64, 64,
                Format.RGB, at, 64 * 3 - 1, 64 * 3 * 64));
            assertEquals(Status.ARGUMENT, decoder.decode(BufferUtil.address(source), jpeg.length, 8, 10, 0, 60, 64,
                Format.RGB, at, 64 * 3, 64 * 3 * 64));
            assertEquals(Status.ARGUMENT, decoder.decode(BufferUtil.address(source), jpeg.length, 9, 0, 0, 8, 8,
                Format.RGB, at, 64 * 3, 64 * 3 * 64));
            assertNotNull(decoder.problem());
            for (int i = 0; i < out.capacity(); i++) {
                assertEquals(0, out.get(i), "byte " + i + " written");
            }
        } finally {
            BufferUtil.free(source);
        }
    }

    @Test
    void hostileStreamsComeBackAsCorruptWithLibjpegsText() {
        byte[] jpeg = encode(96, 128, 3, true, IMWRITE_JPEG_SAMPLING_FACTOR_420, 2);
        SplittableRandom random = new SplittableRandom(11);
        int corrupt = 0;
        int warned = 0;
        ByteBuffer out = ByteBuffer.allocateDirect(96 * 128 * 3);
        try (RegionDecoder decoder = new RegionDecoder()) {
            for (int trial = 0; trial < 300; trial++) {
                byte[] hostile = jpeg.clone();
                int kind = trial % 3;
                if (kind == 0) {
                    for (int k = 0; k < 1 + random.nextInt(8); k++) {
                        hostile[random.nextInt(hostile.length)] = (byte) random.nextInt(256);
                    }
                } else if (kind == 1) {
                    hostile = java.util.Arrays.copyOf(jpeg, 1 + random.nextInt(jpeg.length - 1));
                } else {
                    hostile[2 + random.nextInt(Math.min(400, hostile.length - 2))] = (byte) random.nextInt(256);
                }
                ByteBuffer source = direct(hostile);
                Status status = decoder.decode(BufferUtil.address(source), hostile.length, 1 + random.nextInt(8), 0, 0,
                    1, 1, Format.RGB, BufferUtil.address(out), 128 * 3, out.capacity());
                BufferUtil.free(source);
                if (status == Status.CORRUPT) {
                    corrupt++;
                    assertNotEquals("", decoder.problem());
                }
                warned += decoder.warnings() > 0 ? 1 : 0;
            }
            assertTrue(corrupt > 30, "corrupt " + corrupt);
            assertTrue(warned > 10, "warned " + warned);
            ByteBuffer garbage = direct(new byte[] {1, 2, 3});
            assertEquals(Status.CORRUPT, decoder.decode(BufferUtil.address(garbage), 3, 8, 0, 0, 1, 1, Format.RGB,
                BufferUtil.address(out), 3, 3));
            assertTrue(decoder.problem().contains("Not a JPEG file"), decoder.problem());
            BufferUtil.free(garbage);
        }
    }

    /**
     * Restart-marker streams made hostile where the cut looks (frame size, DRI, the markers themselves, the
     * intervals, the end): every region decode ends OK, CORRUPT or ARGUMENT, more than 20
     * of the OK ones through the cut, and none writes past the destination's capacity.
     */
    @Test
    void hostileRestartStreamsNeverWritePastTheDestination() {
        byte[] jpeg = encode(96, 128, 3, false, IMWRITE_JPEG_SAMPLING_FACTOR_420, 2, 5);
        java.util.List<Integer> markers = new java.util.ArrayList<>();
        int scan = -1;
        for (int i = 2; i + 1 < jpeg.length; i++) {
            int b = jpeg[i + 1] & 0xFF;
            if ((jpeg[i] & 0xFF) == 0xFF && b == 0xDA && scan < 0) {
                scan = i;
            } else if ((jpeg[i] & 0xFF) == 0xFF && b >= 0xD0 && b <= 0xD7 && scan > 0) {
                markers.add(i);
            }
        }
        assertEquals(96 / 16 * 128 / 16 / 2 - 1, markers.size(), "one RST between each two intervals");
        SplittableRandom random = new SplittableRandom(13);
        int capacity = 128 * 3 * 96;
        ByteBuffer out = ByteBuffer.allocateDirect(capacity + 256);
        int ok = 0;
        int corrupt = 0;
        int cutTrials = 0;
        try (RegionDecoder decoder = new RegionDecoder()) {
            for (int trial = 0; trial < 400; trial++) {
                byte[] hostile = jpeg.clone();
                switch (trial % 5) {
                    case 0 -> hostile[markers.get(random.nextInt(markers.size())) + 1] = (byte) (0xD0 + random.nextInt(8));
                    case 1 -> hostile[markers.get(random.nextInt(markers.size()))] = (byte) random.nextInt(256);
                    case 2 -> hostile[scan + random.nextInt(hostile.length - scan)] = (byte) random.nextInt(256);
                    case 3 -> hostile = java.util.Arrays.copyOf(jpeg, scan + random.nextInt(jpeg.length - scan));
                    default -> hostile[2 + random.nextInt(scan - 2)] = (byte) random.nextInt(256); // headers: SOF, DRI
                }
                for (int i = capacity; i < capacity + 256; i++) {
                    out.put(i, (byte) 0x5A);
                }
                ByteBuffer source = direct(hostile);
                int scale = 1 << random.nextInt(4);
                int cols = RegionDecoder.scaledSide(128, scale);
                int rows = RegionDecoder.scaledSide(96, scale);
                int w = 1 + random.nextInt(cols);
                int h = 1 + random.nextInt(rows);
                Status status = decoder.decode(BufferUtil.address(source), hostile.length, scale,
                    random.nextInt(cols - w + 1), random.nextInt(rows - h + 1), w, h, Format.RGB,
                    BufferUtil.address(out), cols * 3L, capacity);
                BufferUtil.free(source);
                assertTrue(status == Status.OK || status == Status.CORRUPT || status == Status.ARGUMENT,
                    "trial " + trial + ": " + status);
                ok += status == Status.OK ? 1 : 0;
                corrupt += status == Status.CORRUPT ? 1 : 0;
                if (status == Status.OK && decoder.streamBytes() < hostile.length) {
                    cutTrials++;
                }
                for (int i = capacity; i < capacity + 256; i++) {
                    assertEquals(0x5A, out.get(i) & 0xFF, "trial " + trial + ": wrote past the capacity");
                }
            }
        }
        assertTrue(ok > 50 && corrupt > 10 && cutTrials > 20, ok + " OK (" + cutTrials + " of them cut), " + corrupt
            + " corrupt");
    }

    @Test
    void aTruncatedScanIsAWarningTheConverterCanSee() {
        byte[] jpeg = encode(96, 128, 3, false, IMWRITE_JPEG_SAMPLING_FACTOR_420, 4);
        byte[] cut = java.util.Arrays.copyOf(jpeg, jpeg.length / 2 + 2);
        cut[cut.length - 2] = (byte) 0xFF;
        cut[cut.length - 1] = (byte) 0xD9;
        ByteBuffer source = direct(cut);
        ByteBuffer out = ByteBuffer.allocateDirect(96 * 128 * 3);
        try (RegionDecoder decoder = new RegionDecoder()) {
            assertEquals(Status.OK, decoder.decodeWhole(BufferUtil.address(source), cut.length, 8, 96, 128, Format.BGR,
                BufferUtil.address(out), 128 * 3, out.capacity()));
            assertTrue(decoder.warnings() > 0);
            assertTrue(decoder.firstWarning().contains("Corrupt JPEG data"), decoder.firstWarning());
        } finally {
            BufferUtil.free(source);
        }
    }

    @Test
    void realPhotosDecodeLikeOpenCv() throws Exception {
        Path photos = Path.of(System.getProperty("user.home"), ".cache", "pinshard", "photos");
        assumeTrue(Files.isDirectory(photos), "no photos in " + photos + " (scripts/fetch-photos.sh)");
        int checked = 0;
        try (var files = Files.walk(photos); RegionDecoder decoder = new RegionDecoder()) {
            for (Path file : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".jpg")).sorted().limit(3)::iterator) {
                byte[] jpeg = Files.readAllBytes(file);
                ByteBuffer source = direct(jpeg);
                try (BytePointer in = new BytePointer(jpeg); Mat encoded = new Mat(1, jpeg.length, CV_8UC1, in);
                     Mat quarter = imdecode(encoded, IMREAD_REDUCED_GRAYSCALE_4 | IMREAD_COLOR_RGB | IMREAD_IGNORE_ORIENTATION)) {
                    byte[] expected = new byte[(int) quarter.total() * 3];
                    quarter.data().get(expected);
                    byte[] got = wholeDecode(decoder, source, jpeg.length, 2, quarter.rows(), quarter.cols(), Format.RGB);
                    assertEquals(0, maxDifference(got, expected), file.toString());
                    checked++;
                } finally {
                    BufferUtil.free(source);
                }
            }
        }
        assumeTrue(checked > 0, "no .jpg photos in " + photos);
    }
}
