package io.pinshard.jpeg;

import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_SAMPLING_FACTOR_420;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.memory.HeapRounds;
import java.nio.ByteBuffer;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The one entry point: a whole decode gives the pixels OpenCV's decode gives (through libjpeg-turbo's API where the
 * binding is here, else through OpenCV itself), and a bad record comes back as a reason, never a crash.
 */
class JpegDecodingTest {
    private static ByteBuffer direct(byte[] bytes) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(bytes.length);
        buffer.put(bytes).flip();
        return buffer;
    }

    @ParameterizedTest(name = "{0} channels")
    @ValueSource(ints = {1, 3})
    void aWholeDecodeMatchesOpenCvsDecode(int channels) {
        int height = 72;
        int width = 96;
        ByteBuffer source = direct(RegionDecoderTest.encode(height, width, channels, false, IMWRITE_JPEG_SAMPLING_FACTOR_420, 5));
        int bytes = height * width * channels;
        ByteBuffer chosen = ByteBuffer.allocateDirect(bytes);
        ByteBuffer opencv = ByteBuffer.allocateDirect(bytes);
        try (JpegDecoding decoding = new JpegDecoding("JpegDecodingTest", source.capacity());
             OpenCvJpegDecoder reference = new OpenCvJpegDecoder()) {
            assertSame(decoding.opencv(), decoding.opencv(), "one OpenCV decoder per entry point");
            assertNull(decoding.decodeWhole(BufferUtil.address(source), source.capacity(), height, width, channels,
                BufferUtil.address(chosen)));
            assertNull(reference.decodeInto(BufferUtil.address(source), source.capacity(), height, width, channels,
                BufferUtil.address(opencv)));
        }
        long difference = 0;
        for (int i = 0; i < bytes; i++) {
            difference += Math.abs((chosen.get(i) & 0xFF) - (opencv.get(i) & 0xFF));
        }
        // Both are libjpeg-turbo (the system's and OpenCV's bundled one): at most rounding apart.
        assertTrue(difference < bytes, "mean difference " + (double) difference / bytes + " levels per byte");
    }

    @Test
    void aWholeDecodeAllocatesNothing() {
        int height = 72;
        int width = 96;
        ByteBuffer source = direct(RegionDecoderTest.encode(height, width, 3, false, IMWRITE_JPEG_SAMPLING_FACTOR_420, 5));
        ByteBuffer target = ByteBuffer.allocateDirect(height * width * 3);
        long from = BufferUtil.address(source);
        long to = BufferUtil.address(target);
        try (JpegDecoding decoding = new JpegDecoding("JpegDecodingTest", source.capacity())) {
            // Least of up to six rounds of 500 (the JIT allocates while it settles); 16 bytes a decode would be 8 KB.
            long heap = HeapRounds.least(6, 0, () -> {
                for (int i = 0; i < 500; i++) {
                    assertNull(decoding.decodeWhole(from, source.capacity(), height, width, 3, to));
                }
            });
            assertEquals(0, heap, "heap bytes over 500 whole decodes");
        }
    }

    @Test
    void badRecordsComeBackAsReasons() {
        int height = 40;
        int width = 48;
        ByteBuffer source = direct(RegionDecoderTest.encode(height, width, 3, false, IMWRITE_JPEG_SAMPLING_FACTOR_420, 9));
        ByteBuffer target = ByteBuffer.allocateDirect(height * width * 4);
        byte[] noise = new byte[600];
        new java.util.SplittableRandom(3).nextBytes(noise);
        noise[0] = (byte) 0xFF;
        noise[1] = (byte) 0xD8;
        ByteBuffer garbage = direct(noise);
        try (JpegDecoding decoding = new JpegDecoding("JpegDecodingTest", 0)) {
            String channels = decoding.decodeWhole(BufferUtil.address(source), source.capacity(), height, width, 2,
                BufferUtil.address(target));
            assertTrue(channels != null && channels.contains("1 or 3 channels"), channels);
            String corrupt = decoding.decodeWhole(BufferUtil.address(garbage), garbage.capacity(), height, width, 3,
                BufferUtil.address(target));
            assertTrue(corrupt != null && corrupt.startsWith("jpeg payload cannot be decoded"), corrupt);
            assertNotNull(decoding.decodeWhole(BufferUtil.address(source), source.capacity(), height * 2, width, 3,
                BufferUtil.address(target)), "a size other than the stream's");
            // Still usable after the failures.
            assertNull(decoding.decodeWhole(BufferUtil.address(source), source.capacity(), height, width, 3,
                BufferUtil.address(target)));
        }
    }
}
