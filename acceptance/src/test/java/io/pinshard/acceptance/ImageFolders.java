package io.pinshard.acceptance;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
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

    /**
     * {@code root/CLASS/CLASS-i.png}, {@code perClass} uniform PNGs of width x height each (a few KB on disk, seconds
     * to decode and resize at 12 megapixels: a conversion that takes a while); returns root.
     */
    static Path largeUniformPngs(Path root, int perClass, int width, int height, String... classes)
        throws IOException {
        for (String name : classes) {
            Path folder = Files.createDirectories(root.resolve(name));
            for (int i = 0; i < perClass; i++) {
                byte[] row = new byte[1 + 3 * width];  // filter byte 0, then RGB
                Arrays.fill(row, 1, row.length, (byte) (40 + 20 * i));
                ByteArrayOutputStream idat = new ByteArrayOutputStream();
                try (DeflaterOutputStream deflate = new DeflaterOutputStream(idat,
                    new Deflater(1))) {
                    for (int y = 0; y < height; y++) {
                        deflate.write(row);
                    }
                }
                ByteBuffer header = ByteBuffer.allocate(13).putInt(width).putInt(height)
                    .put((byte) 8).put((byte) 2).put((byte) 0).put((byte) 0).put((byte) 0);
                ByteArrayOutputStream png = new ByteArrayOutputStream();
                png.write(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'});
                pngChunk(png, "IHDR", header.array());
                pngChunk(png, "IDAT", idat.toByteArray());
                pngChunk(png, "IEND", new byte[0]);
                Files.write(folder.resolve(name + "-" + i + ".png"), png.toByteArray());
            }
        }
        return root;
    }

    private static void pngChunk(ByteArrayOutputStream png, String type, byte[] data) {
        byte[] typeBytes = type.getBytes(StandardCharsets.US_ASCII);
        CRC32 crc = new CRC32();
        crc.update(typeBytes);
        crc.update(data);
        png.writeBytes(ByteBuffer.allocate(4).putInt(data.length).array());
        png.writeBytes(typeBytes);
        png.writeBytes(data);
        png.writeBytes(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
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
