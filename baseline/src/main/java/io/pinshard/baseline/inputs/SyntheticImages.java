package io.pinshard.baseline.inputs;

import static org.bytedeco.opencv.global.opencv_core.CV_64FC1;
import static org.bytedeco.opencv.global.opencv_core.CV_8UC3;
import static org.bytedeco.opencv.global.opencv_core.add;
import static org.bytedeco.opencv.global.opencv_core.randn;
import static org.bytedeco.opencv.global.opencv_imgproc.FILLED;
import static org.bytedeco.opencv.global.opencv_imgproc.GaussianBlur;
import static org.bytedeco.opencv.global.opencv_imgproc.LINE_AA;
import static org.bytedeco.opencv.global.opencv_imgproc.circle;
import static org.bytedeco.opencv.global.opencv_imgproc.rectangle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Point;
import org.bytedeco.opencv.opencv_core.Rect;
import org.bytedeco.opencv.opencv_core.Scalar;
import org.bytedeco.opencv.opencv_core.Size;

/**
 * Generated stand-ins for photographs when no real ones can be fetched: blurred shapes plus sensor-like
 * noise, so JPEG sizes and decode costs are in a photo's range. Anything measured on them is labelled
 * synthetic.
 */
public final class SyntheticImages {
    /** The seed's camera-image size. */
    public static final int WIDTH = 3000;
    public static final int HEIGHT = 2000;

    private SyntheticImages() {
    }

    /** Writes {@code count} JPEGs of {@code width x height} into {@code classes} class folders under {@code dir}. */
    public static void write(Path dir, int count, int classes, int width, int height) throws IOException {
        for (int c = 0; c < classes; c++) {
            Files.createDirectories(dir.resolve(className(c)));
        }
        for (int i = 0; i < count; i++) {
            try (Mat image = generate(i, width, height)) {
                byte[] jpeg = ShorterSideResizer.encodeJpeg(image, 92);
                Path file = dir.resolve(className(i % classes)).resolve(String.format("synthetic-%05d.jpg", i));
                Files.write(file, jpeg);
            }
        }
    }

    static String className(int c) {
        return String.format("synthetic-%02d", c);
    }

    /** One deterministic BGR image. */
    public static Mat generate(long seed, int width, int height) {
        SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 17);
        Mat image = new Mat(height, width, CV_8UC3, color(random));
        for (int band = 0; band < 6; band++) {
            int y = random.nextInt(height);
            try (Rect rect = new Rect(0, y, width, Math.max(1, height / 6)); Scalar c = color(random)) {
                rectangle(image, rect, c, FILLED, LINE_AA, 0);
            }
        }
        for (int s = 0; s < 40; s++) {
            try (Point centre = new Point(random.nextInt(width), random.nextInt(height)); Scalar c = color(random)) {
                circle(image, centre, 20 + random.nextInt(Math.max(21, height / 5)), c, FILLED, LINE_AA, 0);
            }
        }
        try (Size kernel = new Size(0, 0)) {
            GaussianBlur(image, image, kernel, 9);
        }
        // Sensor-like grain: normal noise clipped at 0 by the uint8 type, so it brightens slightly.
        try (Mat noise = new Mat(height, width, CV_8UC3); Scalar zero = new Scalar(0.0); Scalar six = new Scalar(6.0);
             Mat mean = new Mat(1, 1, CV_64FC1, zero); Mat sigma = new Mat(1, 1, CV_64FC1, six)) {
            randn(noise, mean, sigma);
            add(image, noise, image);
        }
        return image;
    }

    private static Scalar color(SplittableRandom random) {
        return new Scalar(random.nextInt(256), random.nextInt(256), random.nextInt(256), 0);
    }
}
