package io.pinshard.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
