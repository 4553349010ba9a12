package io.pinshard.loader.augment;

import io.pinshard.loader.options.AugmentOptions;
import io.pinshard.loader.sample.SplitMix;

/**
 * The region of a stored image that becomes one output crop, and whether it is mirrored. Mutable and
 * reused per worker. {@link #randomResized} follows torchvision's {@code RandomResizedCrop.get_params}
 * exactly: ten tries of a log-uniform aspect ratio and a uniform area fraction, then a centre crop
 * clamped to the ratio range.
 */
public final class CropBox {
    public int x;
    public int y;
    public int width;
    public int height;
    public boolean flip;

    public int x() { return x; }
    public int y() { return y; }
    public int width() { return width; }
    public int height() { return height; }
    public boolean flip() { return flip; }

    public CropBox set(int x, int y, int width, int height, boolean flip) {
        this.x = x;
        this.y = y;
        this.width = width;
        this.height = height;
        this.flip = flip;
        return this;
    }

    /** torchvision RandomResizedCrop parameters for an {@code imageHeight x imageWidth} image, then the flip draw. */
    public CropBox randomResized(int imageHeight, int imageWidth, AugmentOptions options, SplitMix random) {
        double area = (double) imageHeight * imageWidth;
        double logRatioMin = Math.log(options.ratioMin());
        double logRatioMax = Math.log(options.ratioMax());
        boolean found = false;
        for (int attempt = 0; attempt < 10 && !found; attempt++) {
            double targetArea = area * random.uniform(options.scaleMin(), options.scaleMax());
            double aspect = Math.exp(random.uniform(logRatioMin, logRatioMax));
            int w = (int) Math.round(Math.sqrt(targetArea * aspect));
            int h = (int) Math.round(Math.sqrt(targetArea / aspect));
            if (w > 0 && w <= imageWidth && h > 0 && h <= imageHeight) {
                int top = random.nextInt(imageHeight - h + 1);
                int left = random.nextInt(imageWidth - w + 1);
                set(left, top, w, h, false);
                found = true;
            }
        }
        if (!found) {
            double inRatio = (double) imageWidth / imageHeight;
            int w;
            int h;
            if (inRatio < options.ratioMin()) {
                w = imageWidth;
                h = Math.max(1, Math.min(imageHeight, (int) Math.round(w / options.ratioMin())));
            } else if (inRatio > options.ratioMax()) {
                h = imageHeight;
                w = Math.max(1, Math.min(imageWidth, (int) Math.round(h * options.ratioMax())));
            } else {
                w = imageWidth;
                h = imageHeight;
            }
            set((imageWidth - w) / 2, (imageHeight - h) / 2, w, h, false);
        }
        flip = random.nextDouble() < options.flipProbability();
        return this;
    }

    /**
     * Eval crop: the centred square that {@code Resize(crop / fraction)} followed by {@code CenterCrop(crop)}
     * would keep, in stored-image pixels.
     */
    public CropBox centre(int imageHeight, int imageWidth, double cropFraction) {
        int shorter = Math.min(imageHeight, imageWidth);
        int side = Math.max(1, Math.min(shorter, (int) Math.round(shorter * cropFraction)));
        return set((imageWidth - side) / 2, (imageHeight - side) / 2, side, side, false);
    }

    @Override
    public String toString() {
        return "crop " + width + "x" + height + " at (" + x + ", " + y + ")" + (flip ? " flipped" : "");
    }
}
