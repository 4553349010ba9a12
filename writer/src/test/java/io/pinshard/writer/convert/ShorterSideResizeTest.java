package io.pinshard.writer.convert;

import static org.bytedeco.opencv.global.opencv_core.CV_8UC3;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Scalar;
import org.junit.jupiter.api.Test;

class ShorterSideResizeTest {
    @Test
    void shorterSideBecomesTheTargetAndTheLongerRoundsHalfUp() {
        assertEquals(320, ShorterSideResize.scaledSide(2880, 2880, 320));
        assertEquals(569, ShorterSideResize.scaledSide(5120, 2880, 320)); // 568.9
        assertEquals(3, ShorterSideResize.scaledSide(5, 3, 2)); // 3.33
        assertEquals(1, ShorterSideResize.scaledSide(1, 1000, 2), "never below one pixel");
    }

    @Test
    void resizesShrinksCopiesAndEnlargesOnlyWhenAsked() {
        try (Mat image = new Mat(300, 500, CV_8UC3, new Scalar(10, 20, 30, 0))) {
            try (Mat small = ShorterSideResize.resize(image, 60, false)) {
                assertEquals(60, small.rows());
                assertEquals(100, small.cols());
            }
            try (Mat same = ShorterSideResize.resize(image, 600, false)) {
                assertEquals(300, same.rows());
                assertEquals(500, same.cols());
            }
            try (Mat large = ShorterSideResize.resize(image, 600, true)) {
                assertEquals(600, large.rows());
                assertEquals(1000, large.cols());
            }
            // A reduced decode (1/4 here) of a 1200x2000 original: the size comes from the original.
            try (Mat fromReduced = ShorterSideResize.resize(image, 1200, 2000, 100, false)) {
                assertEquals(100, fromReduced.rows());
                assertEquals(167, fromReduced.cols());
            }
        }
    }
}
