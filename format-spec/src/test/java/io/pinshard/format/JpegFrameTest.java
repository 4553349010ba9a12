package io.pinshard.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

class JpegFrameTest {
    private static final Path INPUTS = Path.of("test-vectors", "inputs");

    @Test
    void readsTheFrameOfTheCommittedJpegInputs() throws IOException {
        assertFrame(6, 10, 3, "rgb-6x10.jpg");
        assertFrame(8, 8, 3, "rgb-8x8.jpg");
        assertFrame(8, 8, 1, "gray-8x8.jpg");
    }

    @Test
    void findsTheFrameAtAnOffsetInsideALargerBuffer() throws IOException {
        byte[] jpeg = Files.readAllBytes(INPUTS.resolve("rgb-6x10.jpg"));
        byte[] padded = new byte[jpeg.length + 100];
        System.arraycopy(jpeg, 0, padded, 64, jpeg.length);
        long frame = JpegFrame.read(new UnsafeBuffer(padded), 64, jpeg.length);
        assertEquals(6, JpegFrame.height(frame));
        assertEquals(10, JpegFrame.width(frame));
    }

    @Test
    void everyTruncationAndForeignBytesAreMalformed() throws IOException {
        byte[] jpeg = Files.readAllBytes(INPUTS.resolve("rgb-8x8.jpg"));
        for (int length = 0; length < jpeg.length; length++) {
            byte[] cut = Arrays.copyOf(jpeg, length);
            assertEquals(JpegFrame.MALFORMED, JpegFrame.read(new UnsafeBuffer(cut), 0, length), "cut at " + length);
        }
        byte[] text = "not a jpeg at all".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertEquals(JpegFrame.MALFORMED, JpegFrame.read(new UnsafeBuffer(text), 0, text.length));
    }

    @Test
    void segmentLengthsRunningPastThePayloadAreMalformed() throws IOException {
        byte[] jpeg = Files.readAllBytes(INPUTS.resolve("rgb-8x8.jpg"));
        jpeg[4] = (byte) 0xFF; // APP0 length 0xFF10: past the end
        assertEquals(JpegFrame.MALFORMED, JpegFrame.read(new UnsafeBuffer(jpeg), 0, jpeg.length));
    }

    private static void assertFrame(int height, int width, int components, String input) throws IOException {
        byte[] jpeg = Files.readAllBytes(INPUTS.resolve(input));
        long frame = JpegFrame.read(new UnsafeBuffer(jpeg), 0, jpeg.length);
        assertEquals(height, JpegFrame.height(frame), input);
        assertEquals(width, JpegFrame.width(frame), input);
        assertEquals(components, JpegFrame.components(frame), input);
    }

    @Test
    void inspectWalksEveryScanAndReturnsTheSameFrame() throws IOException {
        for (String input : new String[] {"rgb-6x10.jpg", "rgb-8x8.jpg", "gray-8x8.jpg"}) {
            byte[] jpeg = Files.readAllBytes(INPUTS.resolve(input));
            assertEquals(JpegFrame.read(new UnsafeBuffer(jpeg), 0, jpeg.length),
                JpegFrame.inspect(new UnsafeBuffer(jpeg), 0, jpeg.length), input);
            byte[] trailing = Arrays.copyOf(jpeg, jpeg.length + 5); // bytes after EOI are ignored, as libjpeg does
            assertEquals(JpegFrame.read(new UnsafeBuffer(jpeg), 0, jpeg.length),
                JpegFrame.inspect(new UnsafeBuffer(trailing), 0, trailing.length), input);
        }
    }

    @Test
    void inspectFindsEveryTruncationAndNamesIt() throws IOException {
        byte[] jpeg = Files.readAllBytes(INPUTS.resolve("rgb-8x8.jpg"));
        for (int length = 0; length < jpeg.length - 1; length++) {
            long code = JpegFrame.inspect(new UnsafeBuffer(Arrays.copyOf(jpeg, length)), 0, length);
            assertTrue(code < 0, "cut at " + length);
            assertFalse(JpegFrame.problem(code).isEmpty());
        }
        assertEquals(JpegFrame.NO_END, JpegFrame.inspect(new UnsafeBuffer(jpeg), 0, jpeg.length - 2));
        assertEquals("truncated JPEG: no end-of-image marker after the scan data", JpegFrame.problem(JpegFrame.NO_END));
    }

    @Test
    void inspectChecksTheBytesInsideScanData() throws IOException {
        byte[] jpeg = Files.readAllBytes(INPUTS.resolve("rgb-8x8.jpg"));
        int scanData = scanDataStart(jpeg);
        byte[] badEscape = insert(jpeg, scanData + 1, (byte) 0xFF, (byte) 0x37);
        assertEquals(JpegFrame.BAD_SCAN_BYTE, JpegFrame.inspect(new UnsafeBuffer(badEscape), 0, badEscape.length));
        byte[] restarts = insert(jpeg, scanData + 1, (byte) 0xFF, (byte) 0xD0, (byte) 0x12, (byte) 0xFF, (byte) 0xD1);
        assertTrue(JpegFrame.inspect(new UnsafeBuffer(restarts), 0, restarts.length) >= 0, "RST0, RST1 in order");
        byte[] skipped = insert(jpeg, scanData + 1, (byte) 0xFF, (byte) 0xD0, (byte) 0x12, (byte) 0xFF, (byte) 0xD2);
        assertEquals(JpegFrame.RESTART_OUT_OF_ORDER, JpegFrame.inspect(new UnsafeBuffer(skipped), 0, skipped.length));
        byte[] empty = new byte[scanData + 2];
        System.arraycopy(jpeg, 0, empty, 0, scanData);
        empty[scanData] = (byte) 0xFF;
        empty[scanData + 1] = (byte) 0xD9;
        assertEquals(JpegFrame.EMPTY_SCAN, JpegFrame.inspect(new UnsafeBuffer(empty), 0, empty.length));
        byte[] noMarker = jpeg.clone();
        noMarker[3] = 0x5A; // FF 5A is no marker
        assertEquals(JpegFrame.NO_MARKER, JpegFrame.inspect(new UnsafeBuffer(noMarker), 0, noMarker.length));
    }

    @Test
    void a0xFfIsFoundAtEveryPositionOfAWord() throws IOException {
        byte[] jpeg = Files.readAllBytes(INPUTS.resolve("rgb-8x8.jpg"));
        int scanData = scanDataStart(jpeg);
        for (int filler = 0; filler < 24; filler++) {
            byte[] bytes = new byte[filler + 2];
            Arrays.fill(bytes, (byte) 0x12);
            bytes[filler] = (byte) 0xFF;
            bytes[filler + 1] = (byte) 0x37;
            byte[] bad = insert(jpeg, scanData, bytes);
            assertEquals(JpegFrame.BAD_SCAN_BYTE, JpegFrame.inspect(new UnsafeBuffer(bad), 0, bad.length), "at " + filler);
            bytes[filler + 1] = 0x00;
            byte[] stuffed = insert(jpeg, scanData, bytes);
            assertTrue(JpegFrame.inspect(new UnsafeBuffer(stuffed), 0, stuffed.length) >= 0, "stuffed at " + filler);
        }
    }

    @Test
    void scansThatLeaveCoefficientsUncoveredAreMissingScans() throws IOException {
        byte[] jpeg = Files.readAllBytes(INPUTS.resolve("rgb-8x8.jpg"));
        int sos = scanDataStart(jpeg);
        assertEquals(0xDA, jpeg[sos - 13] & 0xFF, "one SOS of three components: marker, length, Ns, 3 x 2, Ss, Se, Ah/Al");
        int spectral = sos - 3; // Ss, Se, Ah/Al close the SOS segment
        byte[] dcOnly = jpeg.clone();
        dcOnly[spectral + 1] = 0; // Se = 0: the AC coefficients of every component are never coded
        assertEquals(JpegFrame.SCANS_MISSING, JpegFrame.inspect(new UnsafeBuffer(dcOnly), 0, dcOnly.length));
        byte[] approximate = jpeg.clone();
        approximate[spectral + 2] = 0x01; // Al = 1: never refined to full precision
        assertEquals(JpegFrame.SCANS_MISSING, JpegFrame.inspect(new UnsafeBuffer(approximate), 0, approximate.length));
        assertTrue(JpegFrame.read(new UnsafeBuffer(dcOnly), 0, dcOnly.length) >= 0, "read checks the frame header only");
    }

    /** The index of the first entropy-coded byte: just after the SOS segment. */
    private static int scanDataStart(byte[] jpeg) {
        int at = 2;
        while (true) {
            int marker = jpeg[at + 1] & 0xFF;
            int length = ((jpeg[at + 2] & 0xFF) << 8) | (jpeg[at + 3] & 0xFF);
            at += 2 + length;
            if (marker == 0xDA) {
                return at;
            }
        }
    }

    private static byte[] insert(byte[] data, int at, byte... bytes) {
        byte[] out = new byte[data.length + bytes.length];
        System.arraycopy(data, 0, out, 0, at);
        System.arraycopy(bytes, 0, out, at, bytes.length);
        System.arraycopy(data, at, out, at + bytes.length, data.length - at);
        return out;
    }
}
