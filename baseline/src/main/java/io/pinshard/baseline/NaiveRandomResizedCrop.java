package io.pinshard.baseline;

import java.awt.image.BufferedImage;
import java.awt.image.DataBufferByte;
import java.util.SplittableRandom;

/**
 * torchvision's RandomResizedCrop (scale 0.08-1, ratio 3/4-4/3, ten tries then a centre crop) and a
 * random horizontal flip, written the plain way: bilinear sampling in Java from a decoded
 * {@link BufferedImage} into an RGB byte array. This is the baseline, not pinshard's implementation.
 */
public final class NaiveRandomResizedCrop {
    private static final double LOG_MIN_RATIO = Math.log(3.0 / 4.0);
    private static final double LOG_MAX_RATIO = Math.log(4.0 / 3.0);

    private NaiveRandomResizedCrop() {
    }

    /** The crop box {top, left, height, width} torchvision would draw for an image of {@code height x width}. */
    public static int[] box(int height, int width, SplittableRandom random) {
        double area = (double) height * width;
        for (int attempt = 0; attempt < 10; attempt++) {
            double targetArea = area * (0.08 + random.nextDouble() * 0.92);
            double ratio = Math.exp(LOG_MIN_RATIO + random.nextDouble() * (LOG_MAX_RATIO - LOG_MIN_RATIO));
            int w = (int) Math.round(Math.sqrt(targetArea * ratio));
            int h = (int) Math.round(Math.sqrt(targetArea / ratio));
            if (w > 0 && h > 0 && w <= width && h <= height) {
                return new int[] {random.nextInt(height - h + 1), random.nextInt(width - w + 1), h, w};
            }
        }
        double inRatio = (double) width / height;
        int w;
        int h;
        if (inRatio < 3.0 / 4.0) {
            w = width;
            h = (int) Math.round(w / (3.0 / 4.0));
        } else if (inRatio > 4.0 / 3.0) {
            h = height;
            w = (int) Math.round(h * (4.0 / 3.0));
        } else {
            w = width;
            h = height;
        }
        return new int[] {(height - h) / 2, (width - w) / 2, h, w};
    }

    /**
     * Crops a random box of {@code image}, resizes it to {@code size x size} with bilinear sampling,
     * flips it with probability 1/2 and writes RGB bytes to {@code out} at {@code offset}.
     */
    public static void apply(BufferedImage image, SplittableRandom random, int size, byte[] out, int offset) {
        int height = image.getHeight();
        int width = image.getWidth();
        int[] box = box(height, width, random);
        boolean flip = random.nextBoolean();
        byte[] bgr = image.getType() == BufferedImage.TYPE_3BYTE_BGR
            ? ((DataBufferByte) image.getRaster().getDataBuffer()).getData() : null;
        double scaleY = (double) box[2] / size;
        double scaleX = (double) box[3] / size;
        for (int y = 0; y < size; y++) {
            double sy = Math.min(Math.max((y + 0.5) * scaleY - 0.5, 0), box[2] - 1) + box[0];
            int y0 = (int) sy;
            int y1 = Math.min(y0 + 1, height - 1);
            double fy = sy - y0;
            for (int x = 0; x < size; x++) {
                double sx = Math.min(Math.max((x + 0.5) * scaleX - 0.5, 0), box[3] - 1) + box[1];
                int x0 = (int) sx;
                int x1 = Math.min(x0 + 1, width - 1);
                double fx = sx - x0;
                int o = offset + (y * size + (flip ? size - 1 - x : x)) * 3;
                for (int c = 0; c < 3; c++) {
                    double top = sample(image, bgr, width, y0, x0, c) * (1 - fx) + sample(image, bgr, width, y0, x1, c) * fx;
                    double bottom = sample(image, bgr, width, y1, x0, c) * (1 - fx) + sample(image, bgr, width, y1, x1, c) * fx;
                    out[o + c] = (byte) (int) Math.round(top * (1 - fy) + bottom * fy);
                }
            }
        }
    }

    /** Channel {@code c} (0 = red) at (y, x): straight from the BGR bytes when the decoder gave those. */
    private static int sample(BufferedImage image, byte[] bgr, int width, int y, int x, int c) {
        if (bgr != null) {
            return bgr[(y * width + x) * 3 + (2 - c)] & 0xFF;
        }
        return (image.getRGB(x, y) >> (16 - 8 * c)) & 0xFF;
    }
}
