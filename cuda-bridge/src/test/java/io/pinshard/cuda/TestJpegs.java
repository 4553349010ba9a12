package io.pinshard.cuda;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Random;
import javax.imageio.ImageIO;

/** JPEGs for the nvJPEG tests and check, encoded with the JDK's own ImageIO (no native library needed). */
final class TestJpegs {
    private TestJpegs() {
    }

    /** A photo-like RGB image: smooth gradients with some noise, so its JPEG has real Huffman work in it. */
    static BufferedImage rgb(int height, int width, long seed) {
        Random random = new Random(seed);
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_3BYTE_BGR);
        int phase = random.nextInt(256);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                int r = (x * 255 / width + phase) & 0xFF;
                int g = (y * 255 / height + random.nextInt(24)) & 0xFF;
                int b = ((x + y) * 127 / (width + height) + 64 + random.nextInt(16)) & 0xFF;
                image.setRGB(x, y, r << 16 | g << 8 | b);
            }
        }
        return image;
    }

    static BufferedImage gray(int height, int width) {
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_BYTE_GRAY);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                int v = (x * 7 + y * 3) & 0xFF;
                image.setRGB(x, y, v << 16 | v << 8 | v);
            }
        }
        return image;
    }

    static byte[] encode(BufferedImage image) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            if (!ImageIO.write(image, "jpg", out)) {
                throw new IllegalStateException("ImageIO has no JPEG writer");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** The JPEG's pixels as ImageIO decodes them, RGB interleaved. */
    static byte[] decodeRgb(byte[] jpeg) {
        try {
            BufferedImage image = ImageIO.read(new java.io.ByteArrayInputStream(jpeg));
            byte[] rgb = new byte[image.getHeight() * image.getWidth() * 3];
            int i = 0;
            for (int y = 0; y < image.getHeight(); y++) {
                for (int x = 0; x < image.getWidth(); x++) {
                    int p = image.getRGB(x, y);
                    rgb[i++] = (byte) (p >> 16);
                    rgb[i++] = (byte) (p >> 8);
                    rgb[i++] = (byte) p;
                }
            }
            return rgb;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Payloads one after another in one direct buffer, as records lie in a mapped shard. */
    static ByteBuffer packed(byte[]... payloads) {
        int total = 0;
        for (byte[] p : payloads) {
            total += p.length;
        }
        ByteBuffer buffer = ByteBuffer.allocateDirect(total);
        for (byte[] p : payloads) {
            buffer.put(p);
        }
        return buffer.flip();
    }
}
