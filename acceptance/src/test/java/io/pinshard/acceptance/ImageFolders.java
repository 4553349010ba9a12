package io.pinshard.acceptance;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;

/** Tiny image folders for the tests (PNG through the JDK's ImageIO, so no native library loads in the test JVM). */
final class ImageFolders {
    /** The brightest channel value in these images: captions (white) stand out against every pixel of them. */
    static final int MAX_CHANNEL = 180;

    private ImageFolders() {
    }

    /** {@code root/CLASS/CLASS-i.png} for each class, {@code perClass} images of 48 x 40 each; returns root. */
    static Path classFolders(Path root, int perClass, String... classes) throws IOException {
        for (int c = 0; c < classes.length; c++) {
            Path folder = Files.createDirectories(root.resolve(classes[c]));
            for (int i = 0; i < perClass; i++) {
                ImageIO.write(image(48, 40, c, i), "png", folder.resolve(classes[c] + "-" + i + ".png").toFile());
            }
        }
        return root;
    }

    /** A gradient whose hue follows the class and whose offset follows the image, every channel at most MAX_CHANNEL. */
    private static BufferedImage image(int width, int height, int classIndex, int index) {
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                int r = (x * 3 + index * 25) % MAX_CHANNEL;
                int g = (y * 3 + classIndex * 60) % MAX_CHANNEL;
                int b = ((x + y) * 2 + classIndex * 40) % MAX_CHANNEL;
                image.setRGB(x, y, (r << 16) | (g << 8) | b);
            }
        }
        return image;
    }
}
