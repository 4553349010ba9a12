package io.pinshard.jpeg;

import static org.bytedeco.opencv.global.opencv_core.CV_32F;
import static org.bytedeco.opencv.global.opencv_core.CV_8UC;
import static org.bytedeco.opencv.global.opencv_core.CV_8UC3;
import static org.bytedeco.opencv.global.opencv_core.extractChannel;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_BGRA2BGR;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_GRAY2BGR;
import static org.bytedeco.opencv.global.opencv_imgproc.blendLinear;
import static org.bytedeco.opencv.global.opencv_imgproc.cvtColor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.SplittableRandom;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Scalar;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The native alpha composite against its formula and against OpenCV's blendLinear (the converter's former one). */
class AlphaCompositeTest {
    @BeforeAll
    static void needsTheBinding() {
        assumeTrue(TurboJpeg.unavailableReason() == null, "no libjpeg-turbo binding: " + TurboJpeg.unavailableReason());
    }

    @ParameterizedTest(name = "{0}x{1}x{2} on ({3}, {4}, {5})")
    @CsvSource({"37,53,4,255,255,255", "64,17,2,255,255,255", "20,30,4,10,200,77", "9,11,2,0,128,255"})
    void isTheFormulaAndOpenCvsBlendWithinOneLevel(int height, int width, int channels, int b0, int b1, int b2) {
        SplittableRandom random = new SplittableRandom(height * 13L + width);
        try (Mat source = new Mat(height, width, CV_8UC(channels)); Mat ours = new Mat(height, width, CV_8UC3);
             Mat opencv = new Mat(); Mat color = new Mat(); Mat alpha = new Mat(); Mat weights = new Mat();
             Mat inverse = new Mat(); Mat background = new Mat(height, width, CV_8UC3, new Scalar(b0, b1, b2, 0))) {
            for (long i = 0; i < (long) height * width * channels; i++) {
                int v = random.nextInt(8) == 0 ? (random.nextBoolean() ? 0 : 255) : random.nextInt(256); // opaque, clear, between
                source.data().put(i, (byte) v);
            }
            AlphaComposite.onBackground(source.data().address(), height, width, source.step(), channels, b0, b1, b2,
                ours.data().address(), ours.step());
            int[] background3 = {b0, b1, b2};
            for (int y = 0; y < height; y++) {
                for (int x = 0; x < width; x++) {
                    long in = y * source.step() + (long) x * channels;
                    int a = source.data().get(in + channels - 1) & 0xFF;
                    for (int c = 0; c < 3; c++) {
                        int v = source.data().get(in + (channels == 4 ? c : 0)) & 0xFF;
                        int expected = (int) Math.round((v * a + background3[c] * (255.0 - a)) / 255.0);
                        assertEquals(expected, ours.data().get(y * ours.step() + x * 3L + c) & 0xFF, "pixel " + x + "," + y);
                    }
                }
            }
            if (channels == 4) {
                cvtColor(source, color, COLOR_BGRA2BGR);
            } else {
                try (Mat grey = new Mat()) {
                    extractChannel(source, grey, 0);
                    cvtColor(grey, color, COLOR_GRAY2BGR);
                }
            }
            extractChannel(source, alpha, channels - 1);
            alpha.convertTo(weights, CV_32F, 1.0, 0);
            alpha.convertTo(inverse, CV_32F, -1.0, 255.0);
            blendLinear(color, background, weights, inverse, opencv);
            int worst = 0;
            for (long i = 0; i < (long) height * width * 3; i++) {
                worst = Math.max(worst, Math.abs((ours.data().get(i) & 0xFF) - (opencv.data().get(i) & 0xFF)));
            }
            assertTrue(worst <= 1, "OpenCV's float blend differs by " + worst);
        }
    }

    @Test
    void refusesWhatDoesNotFit() {
        try (Mat image = new Mat(4, 4, CV_8UC(4)); Mat out = new Mat(4, 4, CV_8UC3)) {
            long in = image.data().address();
            long to = out.data().address();
            assertThrows(IllegalArgumentException.class, () -> AlphaComposite.onBackground(in, 4, 4, 16, 3, 0, 0, 0, to, 12));
            assertThrows(IllegalArgumentException.class, () -> AlphaComposite.onBackground(in, 4, 4, 15, 4, 0, 0, 0, to, 12));
            assertThrows(IllegalArgumentException.class, () -> AlphaComposite.onBackground(in, 4, 4, 16, 4, 0, 0, 0, to, 11));
            assertThrows(IllegalArgumentException.class, () -> AlphaComposite.onBackground(in, 4, 4, 16, 4, 0, 256, 0, to, 12));
            assertThrows(IllegalArgumentException.class, () -> AlphaComposite.onBackground(0, 4, 4, 16, 4, 0, 0, 0, to, 12));
        }
    }
}
