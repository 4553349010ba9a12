package io.pinshard.jpeg;

import static org.bytedeco.opencv.global.opencv_core.CV_8UC;
import static org.bytedeco.opencv.global.opencv_imgproc.INTER_AREA;
import static org.bytedeco.opencv.global.opencv_imgproc.resize;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.agrona.BufferUtil;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Size;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The native area shrink against OpenCV's INTER_AREA on the same pixels (the converter's former resize). */
class AreaShrinkTest {
    @BeforeAll
    static void needsTheBinding() {
        assumeTrue(TurboJpeg.unavailableReason() == null, "no libjpeg-turbo binding: " + TurboJpeg.unavailableReason());
    }

    @ParameterizedTest(name = "{0}x{1}x{4} -> {2}x{3}")
    @CsvSource({"900,1440,320,512,3", "810,1440,320,569,3", "793,1410,320,569,3", "640,960,320,480,3",
        "320,569,320,569,3", "657,1050,320,511,3", "300,301,7,299,1", "97,131,96,130,4", "64,64,1,1,3",
        "1200,750,512,320,3"})
    void matchesOpenCvsInterAreaWithinOneLevel(int sh, int sw, int dh, int dw, int channels) {
        SplittableRandom random = new SplittableRandom(sh * 31L + sw);
        try (Mat source = new Mat(sh, sw, CV_8UC(channels)); Mat expected = new Mat(); Size size = new Size(dw, dh)) {
            long pixels = (long) sh * sw * channels;
            for (long i = 0; i < pixels; i++) {
                long x = (i / channels) % sw;
                long y = i / channels / sw;
                int v = (int) (128 + 90 * Math.sin(x / 7.0 + i % channels) * Math.cos(y / 5.0)) + random.nextInt(30) - 15;
                source.data().put(i, (byte) Math.max(0, Math.min(255, v)));
            }
            resize(source, expected, size, 0, 0, INTER_AREA);
            long stride = (long) dw * channels + 3; // a stride wider than the row: rows are placed, not packed
            ByteBuffer out = ByteBuffer.allocateDirect((int) (stride * dh));
            try {
                AreaShrink.shrink(source.data().address(), sh, sw, source.step(), channels, BufferUtil.address(out), dh,
                    dw, stride);
                int worst = 0;
                long differing = 0;
                for (int y = 0; y < dh; y++) {
                    for (int x = 0; x < dw * channels; x++) {
                        int d = Math.abs((out.get((int) (y * stride + x)) & 0xFF)
                            - (expected.data().get((long) y * expected.step() + x) & 0xFF));
                        worst = Math.max(worst, d);
                        differing += d == 0 ? 0 : 1;
                    }
                }
                assertTrue(worst <= 1, "largest difference " + worst);
                assertTrue(differing <= (long) dh * dw * channels / 100, differing + " values differ by 1");
            } finally {
                BufferUtil.free(out);
            }
        }
    }

    @org.junit.jupiter.api.Test
    void refusesToGrowOrToOverrunARow() {
        ByteBuffer buffer = ByteBuffer.allocateDirect(1024);
        long address = BufferUtil.address(buffer);
        try {
            assertThrows(IllegalArgumentException.class, () -> AreaShrink.shrink(address, 10, 10, 30, 3, address, 11, 10, 30));
            assertThrows(IllegalArgumentException.class, () -> AreaShrink.shrink(address, 10, 10, 29, 3, address, 5, 5, 15));
            assertThrows(IllegalArgumentException.class, () -> AreaShrink.shrink(address, 10, 10, 30, 5, address, 5, 5, 25));
            assertThrows(IllegalArgumentException.class, () -> AreaShrink.shrink(0, 10, 10, 30, 3, address, 5, 5, 15));
            byte[] grey = new byte[100];
            java.util.Arrays.fill(grey, (byte) 77);
            buffer.put(0, grey);
            AreaShrink.shrink(address, 10, 10, 10, 1, address + 512, 3, 4, 4);
            byte[] shrunk = new byte[12];
            buffer.get(512, shrunk);
            byte[] expected = new byte[12];
            java.util.Arrays.fill(expected, (byte) 77);
            assertArrayEquals(expected, shrunk, "the mean of a flat image is its level");
            assertEquals(77, buffer.get(512 + 11));
        } finally {
            BufferUtil.free(buffer);
        }
    }
}
