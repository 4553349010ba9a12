package io.pinshard.cuda.nvjpeg;

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

    /**
     * A photo-like RGB image: smooth gradients with some noise, so its JPEG has real Huffman work in it. No channel
     * wraps round (a hard edge): there nvJPEG's chroma upsampling (replication) and libjpeg's (a triangle filter)
     * differ by up to 70 levels, which made the mean difference of a 48 x 64 image 3.4 on an H200.
     */
    static BufferedImage rgb(int height, int width, long seed) {
        Random random = new Random(seed);
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_3BYTE_BGR);
        int phase = random.nextInt(256);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                int r = phase / 2 + x * 127 / width;
                int g = y * 200 / height + random.nextInt(24);
                int b = ((x + y) * 127 / (width + height) + 64 + random.nextInt(16)) & 0xFF;
                image.setRGB(x, y, r << 16 | g << 8 | b);
            }
        }
        return image;
    }

    /**
     * A gray image whose samples are the values given (the raster's, not setRGB's: Java's gray colour space is
     * linear, so setRGB would store gamma-converted values and getRGB convert them back, which a JPEG decoder that
     * outputs Y as R = G = B, as nvJPEG does, never sees).
     */
    static BufferedImage gray(int height, int width) {
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_BYTE_GRAY);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                image.getRaster().setSample(x, y, 0, (x * 7 + y * 3) & 0xFF);
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

    /** The JPEG's pixels as ImageIO decodes them, RGB interleaved; a gray JPEG's Y sample as R = G = B. */
    static byte[] decodeRgb(byte[] jpeg) {
        try {
            BufferedImage image = ImageIO.read(new java.io.ByteArrayInputStream(jpeg));
            byte[] rgb = new byte[image.getHeight() * image.getWidth() * 3];
            int i = 0;
            boolean gray = image.getRaster().getNumBands() == 1;
            for (int y = 0; y < image.getHeight(); y++) {
                for (int x = 0; x < image.getWidth(); x++) {
                    int p = gray ? image.getRaster().getSample(x, y, 0) * 0x010101 : image.getRGB(x, y);
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

    /** Where the first marker {@code 0xFF code} of {@code jpeg} starts (a segment: its length follows). */
    static int markerAt(byte[] jpeg, int code) {
        for (int i = 0; i + 1 < jpeg.length; i++) {
            if ((jpeg[i] & 0xFF) == 0xFF && (jpeg[i + 1] & 0xFF) == code) {
                return i;
            }
        }
        throw new IllegalArgumentException("no marker 0x" + Integer.toHexString(code) + " in a JPEG of " + jpeg.length
            + " bytes");
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
