package io.pinshard.writer.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Images made to hurt the converter: tiny files whose headers declare huge sizes (decompression
 * bombs), and JPEGs whose structure is fine but whose data is not (a decoder warning means reject).
 */
class HostileImageTest {
    @TempDir
    Path dir;

    private final ConvertOptions options = ConvertOptions.defaults().withCodec(OutputCodec.RAW).withShorterSide(16).withWorkers(1);

    private static byte[] smallBgr() {
        return TestImageFiles.gradient(40, 48, 3, 3, 12);
    }

    /** A valid PNG whose IHDR is rewritten to declare {@code width x height} at {@code bitDepth} (CRC fixed). */
    private static byte[] pngDeclaring(int width, int height, int bitDepth) {
        byte[] png = TestImageFiles.png(smallBgr(), 40, 48, 3);
        ByteBuffer be = ByteBuffer.wrap(png).order(ByteOrder.BIG_ENDIAN);
        be.putInt(16, width).putInt(20, height).put(24, (byte) bitDepth);
        CRC32 crc = new CRC32();
        crc.update(png, 12, 17);
        be.putInt(29, (int) crc.getValue());
        return png;
    }

    private static void assertPixelLimit(ConvertedImage image, String declared) {
        assertTrue(image.isRejected(), "must be rejected before decoding");
        assertTrue(image.rejectReason().contains(declared) && image.rejectReason().contains("--max-pixels"), image.rejectReason());
    }

    @Test
    void pngDeclaringBillionsOfPixelsIsRejectedFromItsHeader() throws IOException {
        assertPixelLimit(TestImageFiles.convertFile(dir, options, "bomb.png", pngDeclaring(30000, 30000, 8)), "30000x30000");
        assertPixelLimit(TestImageFiles.convertFile(dir, options, "bomb16.png", pngDeclaring(31000, 31000, 16)), "31000x31000");
    }

    @Test
    void jpegFrameDeclaring65500SquaredIsRejectedFromItsHeader() throws IOException {
        byte[] jpeg = TestImageFiles.jpeg(smallBgr(), 40, 48, 3);
        for (int i = 2; i + 8 < jpeg.length; i++) {
            if ((jpeg[i] & 0xFF) == 0xFF && (jpeg[i + 1] & 0xFF) == 0xC0) {
                jpeg[i + 5] = (byte) 0xFF;
                jpeg[i + 6] = (byte) 0xDC;
                jpeg[i + 7] = (byte) 0xFF;
                jpeg[i + 8] = (byte) 0xDC;
                break;
            }
        }
        assertPixelLimit(TestImageFiles.convertFile(dir, options, "bomb.jpg", jpeg), "65500x65500");
    }

    @Test
    void bmpDeclaringHugeSizeIsRejectedFromItsHeader() throws IOException {
        byte[] bmp = TestImageFiles.encode(".bmp", smallBgr(), 40, 48, 3);
        ByteBuffer.wrap(bmp).order(ByteOrder.LITTLE_ENDIAN).putInt(18, 30000).putInt(22, 30000);
        assertPixelLimit(TestImageFiles.convertFile(dir, options, "bomb.bmp", bmp), "30000x30000");
    }

    @Test
    void everyFormatIsCheckedAgainstTheLimitAndTheLimitIsInclusive() throws IOException {
        byte[] bgr = smallBgr();
        String[] exts = {".jpg", ".png", ".bmp", ".webp", ".tiff", ".ppm"};
        for (String ext : exts) {
            byte[] bytes = TestImageFiles.encode(ext, bgr, 40, 48, 3);
            ConvertedImage atLimit = TestImageFiles.convertFile(dir, options.withMaxPixels(40 * 48), "a" + ext, bytes);
            assertNull(atLimit.rejectReason(), ext);
            assertPixelLimit(TestImageFiles.convertFile(dir, options.withMaxPixels(40 * 48 - 1), "b" + ext, bytes), "48x40");
        }
        byte[] lossless = TestImageFiles.encode(".webp", bgr, 40, 48, 3, 64, 101); // IMWRITE_WEBP_QUALITY > 100: VP8L
        assertPixelLimit(TestImageFiles.convertFile(dir, options.withMaxPixels(100), "l.webp", lossless), "48x40");
    }

    @Test
    void maxPixelsIsValidated() {
        assertEquals(ConvertOptions.DEFAULT_MAX_PIXELS, ConvertOptions.defaults().maxPixels());
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> options.withMaxPixels(0));
        assertTrue(zero.getMessage().contains("--max-pixels"), zero.getMessage());
        assertThrows(IllegalArgumentException.class, () -> options.withMaxPixels((1L << 30) + 1));
    }

    /** A JPEG cut inside its scan data and given an end-of-image marker again: structurally sound, half missing. */
    private static byte[] truncatedWithEndMarker(byte[] jpeg, double fraction) {
        int cut = (int) (jpeg.length * fraction);
        byte[] out = Arrays.copyOf(jpeg, cut + 2);
        out[cut] = (byte) 0xFF;
        out[cut + 1] = (byte) 0xD9;
        return out;
    }

    @Test
    void truncatedJpegWithAnAppendedEndMarkerIsRejectedNotStoredGrey() throws IOException {
        byte[] jpeg = TestImageFiles.jpeg(TestImageFiles.gradient(240, 320, 3, 5, 40), 240, 320, 3);
        byte[] other = TestImageFiles.jpeg(TestImageFiles.gradient(240, 320, 3, 77, 60), 240, 320, 3);
        for (double fraction : new double[] {0.2, 0.33, 0.47, 0.5, 0.61, 0.75, 0.88}) {
            // A sound image of the same size first: OpenCV 4.10/4.11 filled missing data with the previous
            // decode's pixels instead of grey (opencv/opencv#26488); the check must not rely on a fresh buffer.
            assertNull(TestImageFiles.convertFile(dir, options, "sound.jpg", other).rejectReason());
            ConvertedImage image = TestImageFiles.convertFile(dir, options, "cut.jpg", truncatedWithEndMarker(jpeg, fraction));
            assertTrue(image.isRejected(), "cut at " + fraction + " must not be stored");
            assertTrue(image.rejectReason().contains("corrupt JPEG data"), image.rejectReason());
        }
        byte[] big = TestImageFiles.jpeg(TestImageFiles.gradient(1400, 1800, 3, 6, 40), 1400, 1800, 3);
        ConvertedImage reduced = TestImageFiles.convertFile(dir, options.withShorterSide(100), "cut-big.jpg", truncatedWithEndMarker(big, 0.6));
        assertTrue(reduced.isRejected(), "also when decoded at a reduced DCT scale");
    }

    @Test
    void progressiveJpegCutBeforeItsLastScanAndGivenAnEndMarkerIsRejected() throws IOException {
        byte[] jpeg = TestImageFiles.progressiveJpeg(TestImageFiles.gradient(240, 320, 3, 5, 40), 240, 320);
        int lastScan = 0;
        for (int i = 0; i + 1 < jpeg.length; i++) {
            if ((jpeg[i] & 0xFF) == 0xFF && (jpeg[i + 1] & 0xFF) == 0xDA) {
                lastScan = i;
            }
        }
        assertTrue(lastScan > jpeg.length / 3, "a progressive file of several scans");
        for (double fraction : new double[] {0.1, 0.2, 0.33, 0.47, 0.5, 0.61, 0.75, 0.88, 0.99}) {
            ConvertedImage image = TestImageFiles.convertFile(dir, options, "cut.jpg", truncatedWithEndMarker(jpeg, fraction * lastScan / jpeg.length));
            assertTrue(image.isRejected(), "cut at " + fraction + " of the scans before the last");
            assertTrue(image.rejectReason().contains("scans are missing") || image.rejectReason().contains("corrupt JPEG data"),
                image.rejectReason());
        }
    }

    @Test
    void soundJpegsWithRestartMarkersAndProgressiveScansAreKept() throws IOException {
        byte[] bgr = TestImageFiles.gradient(120, 200, 3, 9, 30);
        for (int interval : new int[] {1, 3, 16}) {
            byte[] restarts = TestImageFiles.encode(".jpg", bgr, 120, 200, 3, 1, 90, 4, interval); // QUALITY, RST_INTERVAL
            assertNull(TestImageFiles.convertFile(dir, options, "rst.jpg", restarts).rejectReason(), "RST interval " + interval);
        }
        assertNull(TestImageFiles.convertFile(dir, options, "p.jpg", TestImageFiles.progressiveJpeg(bgr, 120, 200)).rejectReason());
        byte[] grey = TestImageFiles.jpeg(TestImageFiles.gradient(120, 200, 1, 9, 30), 120, 200, 1);
        assertNull(TestImageFiles.convertFile(dir, options, "g.jpg", grey).rejectReason());
    }

    @Test
    void aSoundJpegWhoseCornerIsExactlyGreyIsKept() throws IOException {
        // Uniform grey 128 decodes to exactly what a decoder fills missing data with: the check must confirm, not guess.
        byte[] grey = TestImageFiles.jpeg(TestImageFiles.uniform(48, 64, 3, 128, 128, 128), 48, 64, 3);
        ConvertedImage image = TestImageFiles.convertFile(dir, options, "grey.jpg", grey);
        assertNull(image.rejectReason());
    }
}
