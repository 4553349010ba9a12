package io.pinshard.jpeg;

import static org.bytedeco.opencv.global.opencv_core.CV_8UC1;
import static org.bytedeco.opencv.global.opencv_core.CV_8UC3;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR_BGR;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_GRAYSCALE;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_QUALITY;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_RST_INTERVAL;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imencode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.jpeg.RegionDecoder.Format;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.agrona.BufferUtil;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The libjpeg-turbo encode against OpenCV's imencode (the converter's former encoder) at the same quality. */
class JpegEncoderTest {
    @BeforeAll
    static void needsTheBinding() {
        assumeTrue(TurboJpeg.unavailableReason() == null, "no libjpeg-turbo binding: " + TurboJpeg.unavailableReason());
    }

    @ParameterizedTest(name = "{0}x{1}x{2} q{3}")
    @CsvSource({"320,569,3,90", "569,320,3,90", "321,333,3,75", "17,9,3,100", "320,427,1,90"})
    void decodesToWhatOpenCvsEncodeDecodesTo(int height, int width, int channels, int quality) {
        SplittableRandom random = new SplittableRandom(height * 7L + width);
        try (Mat image = new Mat(height, width, channels == 1 ? CV_8UC1 : CV_8UC3)) {
            long pixels = (long) height * width * channels;
            for (long i = 0; i < pixels; i++) {
                long x = (i / channels) % width;
                long y = i / channels / width;
                int v = (int) (120 + 100 * Math.sin(x / 9.0 + i % channels) * Math.cos(y / 6.0)) + random.nextInt(20) - 10;
                image.data().put(i, (byte) Math.max(0, Math.min(255, v)));
            }
            byte[] opencv;
            int restart = JpegEncoder.restartInterval(width, channels, JpegEncoder.DEFAULT_RESTART_MCUS);
            try (BytePointer out = new BytePointer(); IntPointer params = new IntPointer(IMWRITE_JPEG_QUALITY, quality,
                IMWRITE_JPEG_RST_INTERVAL, restart)) {
                assertTrue(imencode(".jpg", image, out, params));
                opencv = new byte[(int) out.limit()];
                out.get(opencv);
            }
            long capacity = JpegEncoder.maxEncodedLength(height, width);
            assertTrue(capacity >= (long) height * width * 3);
            ByteBuffer out = ByteBuffer.allocateDirect((int) capacity);
            try (JpegEncoder encoder = new JpegEncoder()) {
                int length = encoder.encode(image.data().address(), height, width, image.step(),
                    channels == 1 ? Format.GREY : Format.BGR, quality, BufferUtil.address(out), capacity);
                byte[] ours = new byte[length];
                out.get(0, ours);
                assertEquals(0xFFD8, ((ours[0] & 0xFF) << 8) | (ours[1] & 0xFF), "SOI");
                assertEquals(0xFFD9, ((ours[length - 2] & 0xFF) << 8) | (ours[length - 1] & 0xFF), "EOI");
                assertEquals(restart, restartIntervalOf(ours), "DRI");
                int flags = channels == 1 ? IMREAD_GRAYSCALE : IMREAD_COLOR_BGR;
                byte[] a = RegionDecoderTest.opencvDecode(ours, flags);
                byte[] b = RegionDecoderTest.opencvDecode(opencv, flags);
                assertEquals(b.length, a.length);
                int worst = 0;
                for (int i = 0; i < a.length; i++) {
                    worst = Math.max(worst, Math.abs((a[i] & 0xFF) - (b[i] & 0xFF)));
                }
                assertTrue(worst <= 2, "decoded pixels differ by up to " + worst);
                assertTrue(Math.abs(ours.length - opencv.length) <= opencv.length / 50,
                    ours.length + " bytes against OpenCV's " + opencv.length);
            } finally {
                BufferUtil.free(out);
            }
        }
    }

    /** The DRI segment's interval, or 0 when the stream has none before its scan. */
    static int restartIntervalOf(byte[] jpeg) {
        int pos = 2;
        while (pos + 4 <= jpeg.length && (jpeg[pos] & 0xFF) == 0xFF) {
            int marker = jpeg[pos + 1] & 0xFF;
            int length = ((jpeg[pos + 2] & 0xFF) << 8) | (jpeg[pos + 3] & 0xFF);
            if (marker == 0xDD) {
                return ((jpeg[pos + 4] & 0xFF) << 8) | (jpeg[pos + 5] & 0xFF);
            }
            if (marker == 0xDA) {
                return 0;
            }
            pos += 2 + length;
        }
        throw new AssertionError("no scan in the stream");
    }

    @ParameterizedTest(name = "width {0}, {1} channels, up to {2}: {3}")
    @CsvSource({"320,3,2,2", "336,3,2,1", "336,3,3,3", "330,3,2,1", "17,3,2,2", "16,3,2,1", "8,1,2,1", "9,1,2,2",
        "568,1,4,1", "569,3,4,4", "100,3,0,0", "1,3,5,1"})
    void theRestartIntervalIsTheLargestDivisorOfARowsMcusUpToTheLimit(int width, int channels, int limit,
        int expected) {
        assertEquals(expected, JpegEncoder.restartInterval(width, channels, limit));
    }

    @Test
    void aStreamLargerThanTheBufferIsAnErrorNotAnOverrun() {
        int height = 64;
        int width = 64;
        ByteBuffer pixels = ByteBuffer.allocateDirect(height * width * 3);
        ByteBuffer out = ByteBuffer.allocateDirect(4096);
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < pixels.capacity(); i++) {
            pixels.put(i, (byte) random.nextInt(256)); // noise: no JPEG of it fits in 600 bytes
        }
        out.put(600, (byte) 0x5A);
        try (JpegEncoder encoder = new JpegEncoder()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> encoder.encode(
                BufferUtil.address(pixels), height, width, width * 3, Format.RGB, 90, BufferUtil.address(out), 600));
            assertTrue(e.getMessage().contains("does not fit in 600 bytes"), e.getMessage());
            assertEquals(0x5A, out.get(600), "nothing written past the capacity");
            assertThrows(IllegalArgumentException.class, () -> encoder.encode(BufferUtil.address(pixels), height, width,
                width * 3 - 1, Format.RGB, 90, BufferUtil.address(out), 4096));
            assertThrows(IllegalArgumentException.class, () -> encoder.encode(BufferUtil.address(pixels), height, width,
                width * 3, Format.RGB, 0, BufferUtil.address(out), 4096));
            int length = encoder.encode(BufferUtil.address(pixels), 8, 8, width * 3, Format.RGB, 90,
                BufferUtil.address(out), 4096);
            assertTrue(length > 100 && length < 4096, "the encoder is usable after a failure: " + length);
        } finally {
            BufferUtil.free(pixels);
            BufferUtil.free(out);
        }
    }
}
