package io.pinshard.writer.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_COLOR_2;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_COLOR_4;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_COLOR_8;

import io.pinshard.format.Codec;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import net.jpountz.lz4.LZ4Factory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImageProcessorTest {
    @TempDir
    Path dir;

    private final ConvertOptions raw = ConvertOptions.defaults().withCodec(OutputCodec.RAW).withShorterSide(32).withWorkers(1);

    private ConvertedImage convert(ConvertOptions options, String name, byte[] bytes) throws IOException {
        return TestImageFiles.convertFile(dir, options, name, bytes);
    }

    private static int px(ConvertedImage image, int y, int x, int c) {
        return image.payload()[(y * image.width() + x) * 3 + c] & 0xFF;
    }

    @Test
    void reductionIsTheLargestThatKeepsTheShorterSideAtGapTimesTheTarget() {
        // gap 1: the plain "at or above the target" rule; libjpeg rounds scaled sizes up.
        assertEquals(IMREAD_REDUCED_COLOR_8, ImageProcessor.jpegFlags(2880, 320, 1));
        assertEquals(IMREAD_REDUCED_COLOR_8, ImageProcessor.jpegFlags(2553, 320, 1));
        assertEquals(IMREAD_REDUCED_COLOR_4, ImageProcessor.jpegFlags(2552, 320, 1));
        assertEquals(IMREAD_REDUCED_COLOR_4, ImageProcessor.jpegFlags(1600, 320, 1));
        assertEquals(IMREAD_REDUCED_COLOR_2, ImageProcessor.jpegFlags(1080, 320, 1));
        assertEquals(IMREAD_REDUCED_COLOR_2, ImageProcessor.jpegFlags(639, 320, 1));
        assertEquals(IMREAD_COLOR, ImageProcessor.jpegFlags(638, 320, 1));
        assertEquals(IMREAD_COLOR, ImageProcessor.jpegFlags(100, 320, 1));
        // gap 2 (the default): at least 640 px left for the area resize.
        assertEquals(IMREAD_REDUCED_COLOR_4, ImageProcessor.jpegFlags(2880, 320, 2));
        assertEquals(IMREAD_REDUCED_COLOR_2, ImageProcessor.jpegFlags(1600, 320, 2));
        assertEquals(IMREAD_COLOR, ImageProcessor.jpegFlags(1278, 320, 2));
        assertEquals(IMREAD_REDUCED_COLOR_8, ImageProcessor.jpegFlags(5120, 320, 2));
        // gap 0: never reduce.
        assertEquals(IMREAD_COLOR, ImageProcessor.jpegFlags(5120, 320, 0));
    }

    @Test
    void jpegIsResizedToExactlyTheShorterSideKeepingTheAspect() throws IOException {
        ConvertedImage image = convert(raw, "a.jpg", TestImageFiles.jpeg(TestImageFiles.gradient(300, 500, 3, 1, 4), 300, 500, 3));
        assertNull(image.rejectReason());
        assertEquals(Codec.RAW, image.codec());
        assertEquals(32, image.height());
        assertEquals(53, image.width()); // round(500 * 32 / 300)
        assertEquals(3, image.channels());
        assertEquals(32 * 53 * 3, image.payload().length);
    }

    @Test
    void portraitAndProgressiveJpegAndOtherFormatsDecode() throws IOException {
        byte[] bgr = TestImageFiles.gradient(120, 80, 3, 2, 4);
        for (String[] kind : new String[][] {{"p.jpg", "progressive"}, {"w.webp", ".webp"}, {"b.bmp", ".bmp"},
            {"t.tiff", ".tiff"}, {"n.png", ".png"}}) {
            byte[] bytes = kind[1].equals("progressive") ? TestImageFiles.progressiveJpeg(bgr, 120, 80)
                : TestImageFiles.encode(kind[1], bgr, 120, 80, 3, 16, 1);
            ConvertedImage image = convert(raw, kind[0], bytes);
            assertNull(image.rejectReason(), kind[0]);
            assertEquals(48, image.height(), kind[0]);
            assertEquals(32, image.width(), kind[0]);
        }
    }

    @Test
    void colourOrderIsRgb() throws IOException {
        // OpenCV pixels are BGR: (b, g, r) = (10, 100, 250) must come out as R=250, G=100, B=10.
        ConvertedImage image = convert(raw, "c.png", TestImageFiles.png(TestImageFiles.uniform(40, 40, 3, 10, 100, 250), 40, 40, 3));
        assertEquals(250, px(image, 5, 5, 0));
        assertEquals(100, px(image, 5, 5, 1));
        assertEquals(10, px(image, 5, 5, 2));
    }

    @Test
    void greyscaleIsExpandedToThreeEqualChannels() throws IOException {
        byte[] grey = TestImageFiles.gradient(64, 64, 1, 3, 0);
        for (byte[] bytes : new byte[][] {TestImageFiles.png(grey, 64, 64, 1), TestImageFiles.jpeg(grey, 64, 64, 1)}) {
            ConvertedImage image = convert(raw, "g" + bytes.length + (bytes[0] == (byte) 0x89 ? ".png" : ".jpg"), bytes);
            assertEquals(3, image.channels());
            for (int i = 0; i < image.payload().length; i += 3) {
                assertEquals(image.payload()[i], image.payload()[i + 1]);
                assertEquals(image.payload()[i], image.payload()[i + 2]);
            }
        }
    }

    @Test
    void sixteenBitIsScaledTo8Bit() throws IOException {
        ConvertedImage image = convert(raw, "d.png", TestImageFiles.png16(40, 40, 100 * 257));
        assertEquals(100, px(image, 3, 3, 0));
        assertEquals(100, px(image, 3, 3, 2));
    }

    @Test
    void alphaIsCompositedOnWhite() throws IOException {
        byte[] bgra = new byte[40 * 40 * 4];
        for (int i = 0; i < 40 * 40; i++) {
            boolean left = (i % 40) < 20;
            bgra[i * 4] = 0;               // B
            bgra[i * 4 + 1] = 0;           // G
            bgra[i * 4 + 2] = (byte) 200;  // R
            bgra[i * 4 + 3] = (byte) (left ? 0 : 255);
        }
        ConvertedImage image = convert(raw.withShorterSide(40), "alpha.png", TestImageFiles.png(bgra, 40, 40, 4));
        assertEquals(3, image.channels());
        assertArrayEquals(new int[] {255, 255, 255}, new int[] {px(image, 5, 2, 0), px(image, 5, 2, 1), px(image, 5, 2, 2)});
        assertArrayEquals(new int[] {200, 0, 0}, new int[] {px(image, 5, 35, 0), px(image, 5, 35, 1), px(image, 5, 35, 2)});
    }

    @Test
    void paletteImageBecomesRgb() throws IOException {
        ConvertedImage image = convert(raw.withShorterSide(40), "palette.png", TestImageFiles.palettePng(40, 40));
        assertNull(image.rejectReason());
        assertArrayEquals(new int[] {255, 0, 0}, new int[] {px(image, 3, 3, 0), px(image, 3, 3, 1), px(image, 3, 3, 2)});
        assertArrayEquals(new int[] {0, 0, 255}, new int[] {px(image, 3, 36, 0), px(image, 3, 36, 1), px(image, 3, 36, 2)});
    }

    @Test
    void turboScaleIsTheSmallestEighthThatKeepsTheShorterSideAtGapTimesTheTarget() {
        // gap 2 (the default): at least 640 px left for the area resize; libjpeg rounds scaled sizes up.
        assertEquals(1, ImageProcessor.scaleEighths(5120, 320, 2));
        assertEquals(1, ImageProcessor.scaleEighths(5113, 320, 2)); // ceil(5113 / 8) = 640
        assertEquals(2, ImageProcessor.scaleEighths(5112, 320, 2));
        assertEquals(2, ImageProcessor.scaleEighths(2880, 320, 2));
        assertEquals(4, ImageProcessor.scaleEighths(1600, 320, 2)); // 3/8 = 600
        assertEquals(5, ImageProcessor.scaleEighths(1080, 320, 2)); // 675: OpenCV's steps need the full 1080
        assertEquals(5, ImageProcessor.scaleEighths(1278, 320, 2));
        assertEquals(8, ImageProcessor.scaleEighths(700, 320, 2));
        assertEquals(3, ImageProcessor.scaleEighths(1080, 320, 1));
        assertEquals(8, ImageProcessor.scaleEighths(5120, 320, 0));
    }

    @Test
    void exifOrientationIsReadFromTheFirstExifSegment() {
        byte[] jpeg = TestImageFiles.jpeg(TestImageFiles.gradient(60, 100, 3, 4, 0), 60, 100, 3);
        assertEquals(1, ExifOrientation.of(java.nio.ByteBuffer.wrap(jpeg)));
        for (int orientation = 1; orientation <= 8; orientation++) {
            byte[] tagged = TestImageFiles.withExifOrientation(jpeg, orientation);
            assertEquals(orientation, ExifOrientation.of(java.nio.ByteBuffer.wrap(tagged)));
            // Cut anywhere inside the segment: never an exception, never a wrong "1" from a half-read tag.
            for (int cut = 4; cut < 38; cut++) { // the segment ends at byte 38
                int answer = ExifOrientation.of(java.nio.ByteBuffer.wrap(java.util.Arrays.copyOf(tagged, cut)));
                assertTrue(answer == ExifOrientation.UNKNOWN || answer == 1, "cut at " + cut + ": " + answer);
            }
        }
        byte[] bad = TestImageFiles.withExifOrientation(jpeg, 9);
        assertEquals(ExifOrientation.UNKNOWN, ExifOrientation.of(java.nio.ByteBuffer.wrap(bad)));
    }

    @Test
    void exifOrientationIsApplied() throws IOException {
        byte[] jpeg = TestImageFiles.jpeg(TestImageFiles.gradient(60, 100, 3, 4, 0), 60, 100, 3);
        ConvertedImage plain = convert(raw, "plain.jpg", jpeg);
        ConvertedImage rotated = convert(raw, "rotated.jpg", TestImageFiles.withExifOrientation(jpeg, 6));
        assertEquals(32, plain.height());
        assertEquals(53, plain.width());
        assertEquals(53, rotated.height(), "orientation 6 turns a landscape image into a portrait one");
        assertEquals(32, rotated.width());
    }

    @Test
    void exifOrientationIsAppliedOnTheReducedDecodePathToo() throws IOException {
        byte[] jpeg = TestImageFiles.jpeg(TestImageFiles.gradient(600, 1000, 3, 4, 0), 600, 1000, 3);
        assertEquals(IMREAD_REDUCED_COLOR_8, ImageProcessor.jpegFlags(600, 32, raw.reducingGap()));
        ConvertedImage rotated = convert(raw, "big-rotated.jpg", TestImageFiles.withExifOrientation(jpeg, 8));
        assertEquals(53, rotated.height());
        assertEquals(32, rotated.width());
    }

    @Test
    void cmykJpegBecomesRgb() throws IOException {
        // 32x24 CMYK JPEG (made once with Pillow): left half cyan ink, right half yellow ink.
        byte[] cmyk;
        try (var in = ImageProcessorTest.class.getResourceAsStream("/convert/cmyk.jpg")) {
            cmyk = in.readAllBytes();
        }
        ConvertedImage image = convert(raw.withShorterSide(24), "cmyk.jpg", cmyk);
        assertNull(image.rejectReason());
        assertEquals(3, image.channels());
        int[] cyan = {px(image, 10, 4, 0), px(image, 10, 4, 1), px(image, 10, 4, 2)};
        int[] yellow = {px(image, 10, 28, 0), px(image, 10, 28, 1), px(image, 10, 28, 2)};
        assertTrue(cyan[0] < 40 && cyan[1] > 200 && cyan[2] > 200, Arrays.toString(cyan));
        assertTrue(yellow[0] > 200 && yellow[1] > 200 && yellow[2] < 40, Arrays.toString(yellow));
    }

    @Test
    void smallImagesAreNotUpscaledUnlessAsked() throws IOException {
        byte[] png = TestImageFiles.png(TestImageFiles.gradient(20, 30, 3, 5, 0), 20, 30, 3);
        ConvertedImage kept = convert(raw, "small.png", png);
        assertEquals(20, kept.height());
        assertEquals(30, kept.width());
        ConvertedImage enlarged = convert(raw.withUpscale(true), "small2.png", png);
        assertEquals(32, enlarged.height());
        assertEquals(48, enlarged.width());
    }

    @Test
    void maxAspectCropsTheCentreOrRejects() throws IOException {
        byte[] png = TestImageFiles.png(TestImageFiles.gradient(40, 400, 3, 6, 0), 40, 400, 3);
        ConvertedImage cropped = convert(raw.withMaxAspect(3, AspectPolicy.CROP), "pano.png", png);
        assertEquals(32, cropped.height());
        assertEquals(96, cropped.width());
        ConvertedImage rejected = convert(raw.withMaxAspect(3, AspectPolicy.REJECT), "pano2.png", png);
        assertTrue(rejected.rejectReason().contains("aspect ratio 10.00 exceeds --max-aspect 3.0"), rejected.rejectReason());
    }

    @Test
    void codecsStoreWhatTheySay() throws IOException {
        byte[] smooth = TestImageFiles.png(TestImageFiles.uniform(64, 64, 3, 1, 2, 3), 64, 64, 3);
        byte[] noisy = TestImageFiles.png(TestImageFiles.gradient(64, 64, 3, 7, 256), 64, 64, 3);
        ConvertedImage rawImage = convert(raw, "s.png", smooth);
        ConvertedImage lz4 = convert(raw.withCodec(OutputCodec.LZ4), "s.png", smooth);
        assertEquals(Codec.LZ4, lz4.codec());
        byte[] restored = new byte[rawImage.payload().length];
        LZ4Factory.fastestInstance().safeDecompressor().decompress(lz4.payload(), restored);
        assertArrayEquals(rawImage.payload(), restored);
        assertEquals(Codec.LZ4, convert(raw.withCodec(OutputCodec.AUTO), "s.png", smooth).codec());
        assertEquals(Codec.RAW, convert(raw.withCodec(OutputCodec.AUTO), "n.png", noisy).codec(),
            "noise does not compress by 10 %, so auto keeps it raw");
        ConvertedImage jpeg = convert(raw.withCodec(OutputCodec.JPEG), "n.png", noisy);
        assertEquals(Codec.JPEG, jpeg.codec());
        assertEquals(new ImageHeader(32, 32, true), ImageHeader.read(java.nio.ByteBuffer.wrap(jpeg.payload())));
    }

    @Test
    void badInputsAreRejectedWithAReason() throws IOException {
        byte[] jpeg = TestImageFiles.jpeg(TestImageFiles.gradient(200, 200, 3, 8, 30), 200, 200, 3);
        byte[] png = TestImageFiles.png(TestImageFiles.gradient(200, 200, 3, 8, 30), 200, 200, 3);
        byte[] corruptHeader = jpeg.clone();
        for (int i = 3; i < 40; i++) {
            corruptHeader[i] = (byte) 0x5A;
        }
        String[][] cases = {
            {"empty.jpg", "empty file"},
            {"text.jpg", "not an image"},
            {"truncated.jpg", "truncated JPEG"},
            {"truncated.png", "cannot decode"},
            {"corrupt.jpg", "corrupt JPEG"},
            {"anim.gif", "GIF is not supported"},
        };
        byte[][] inputs = {new byte[0], "hello, I am not a picture\n".getBytes(), Arrays.copyOf(jpeg, jpeg.length / 2),
            Arrays.copyOf(png, png.length / 2), corruptHeader, "GIF89a....".getBytes()};
        for (int i = 0; i < cases.length; i++) {
            ConvertedImage image = convert(raw, cases[i][0], inputs[i]);
            assertTrue(image.isRejected(), cases[i][0]);
            assertNotNull(image.rejectReason());
            assertTrue(image.rejectReason().contains(cases[i][1]), cases[i][0] + ": " + image.rejectReason());
            assertFalse(image.rejectReason().contains("\n"));
        }
        ConvertedImage missing = new ImageProcessor(raw).convert(InputItem.file("gone.jpg", 0, dir.resolve("gone.jpg")));
        assertTrue(missing.rejectReason().startsWith("cannot read: "), missing.rejectReason());
    }

    /** Encoded bytes in memory (the Spark data source's way in) give what the same bytes in a file give. */
    @Test
    void encodedBytesConvertAsTheSameFileDoes() throws IOException {
        byte[] jpeg = TestImageFiles.jpeg(TestImageFiles.gradient(300, 500, 3, 3, 8), 300, 500, 3);
        byte[] png = TestImageFiles.png(TestImageFiles.gradient(120, 90, 4, 5, 8), 120, 90, 4);
        String[] names = {"a.jpg", "b.png", "truncated.jpg", "text.jpg", "empty.png"};
        byte[][] inputs = {jpeg, png, Arrays.copyOf(jpeg, jpeg.length / 2), "not a picture".getBytes(), new byte[0]};
        ImageProcessor processor = new ImageProcessor(raw);
        for (int i = 0; i < names.length; i++) {
            ConvertedImage fromFile = convert(raw, names[i], inputs[i]);
            byte[] padded = new byte[inputs[i].length + 7];
            System.arraycopy(inputs[i], 0, padded, 3, inputs[i].length);
            ConvertedImage inMemory = processor.convertEncoded(padded, 3, inputs[i].length);
            assertEquals(fromFile.rejectReason(), inMemory.rejectReason(), names[i]);
            assertArrayEquals(fromFile.payload(), inMemory.payload(), names[i]);
            assertEquals(fromFile.codec(), inMemory.codec(), names[i]);
        }
        ConvertedImage tooLarge = new ImageProcessor(new ConvertOptions(32, false, 0, AspectPolicy.CROP, OutputCodec.RAW, 90,
            ConvertOptions.defaults().shardBytes(), 1, 100, 2, ConvertOptions.DEFAULT_MAX_PIXELS)).convertEncoded(jpeg, 0, jpeg.length);
        assertEquals("cannot read: file is " + jpeg.length + " bytes, larger than the limit of 100", tooLarge.rejectReason());
    }

    /**
     * Decoded pixels (RGB order) join the pipeline after the decode: for a lossless PNG of the same pixels the
     * result is the file's, byte for byte, for grey, RGB and RGBA (composited on white); bad shapes are rejected.
     */
    @Test
    void decodedPixelsConvertAsTheLosslessFileOfThemDoes() throws IOException {
        ImageProcessor processor = new ImageProcessor(raw.withMaxAspect(1.2, AspectPolicy.CROP));
        for (int channels : new int[] {1, 3, 4}) {
            byte[] opencvOrder = TestImageFiles.gradient(90, 140, channels, channels, 20);
            byte[] rgbOrder = opencvOrder.clone();
            for (int i = 0; channels >= 3 && i < rgbOrder.length; i += channels) { // BGR(A) -> RGB(A)
                rgbOrder[i] = opencvOrder[i + 2];
                rgbOrder[i + 2] = opencvOrder[i];
            }
            ConvertedImage fromFile = TestImageFiles.convertFile(dir, raw.withMaxAspect(1.2, AspectPolicy.CROP),
                "p" + channels + ".png", TestImageFiles.png(opencvOrder, 90, 140, channels));
            ConvertedImage fromPixels = processor.convertPixels(90, 140, channels, rgbOrder);
            assertNull(fromPixels.rejectReason(), "channels " + channels);
            assertEquals(32, fromPixels.height());
            assertEquals(38, fromPixels.width(), "cropped to 1.2 x the shorter side");
            assertArrayEquals(fromFile.payload(), fromPixels.payload(), "channels " + channels);
        }
        assertEquals("pixels hold 5 bytes, the shape 2x2x1 needs 4", processor.convertPixels(2, 2, 1, new byte[5]).rejectReason());
        assertTrue(processor.convertPixels(2, 2, 5, new byte[20]).rejectReason().startsWith("invalid shape 2x2x5"));
        assertTrue(processor.convertPixels(0, 2, 3, new byte[0]).rejectReason().startsWith("invalid shape 0x2x3"));
        assertTrue(new ImageProcessor(raw.withMaxAspect(2, AspectPolicy.REJECT)).convertPixels(10, 30, 1, new byte[300])
            .rejectReason().startsWith("aspect ratio 3.00 exceeds --max-aspect"));
    }
}
