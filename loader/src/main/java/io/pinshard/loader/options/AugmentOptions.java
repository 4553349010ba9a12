package io.pinshard.loader.options;

import static io.pinshard.loader.options.OptionChecks.require;

import java.util.Objects;

/**
 * What one record becomes in its batch slot: the crop and its randomness, how pixels are decoded, resampled and
 * stored, and the fields carried beside them. What the sample processor and the crop box read, and what sizes a
 * slot's image and field areas. A part of {@link LoaderOptions}; build it with {@link LoaderOptions#builder()}.
 *
 * @param crop              output side in pixels: images are {@code crop x crop x 3}
 * @param mode              train (random-resized-crop + flip) or eval (resize + centre crop)
 * @param scaleMin          random-resized-crop area fraction, lower bound (torchvision 0.08)
 * @param scaleMax          upper bound (1.0)
 * @param ratioMin          aspect ratio lower bound (3/4), sampled log-uniformly
 * @param ratioMax          upper bound (4/3)
 * @param flipProbability   probability of a horizontal flip in train mode (0.5)
 * @param evalCropFraction  eval: crop / resized shorter side (0.875, i.e. Resize(256) + CenterCrop(224))
 * @param reducedJpegDecode decode JPEG at 1/2, 1/4 or 1/8 scale when the crop box still covers the output
 * @param resampler         who does the bilinear crop of 3-channel images ({@link Resampler#AUTO})
 * @param pixels            what a slot's pixels are: element type, layout, normalisation
 *                          ({@link PixelFormat#UINT8_NHWC}, the crop itself)
 * @param fields            record fields each sample carries beside the pixels ({@link FieldSelection#NONE}), the
 *                          boxes among them moved through the crop
 */
public record AugmentOptions(int crop, LoaderMode mode, double scaleMin, double scaleMax, double ratioMin,
                             double ratioMax, double flipProbability, double evalCropFraction,
                             boolean reducedJpegDecode, Resampler resampler, PixelFormat pixels,
                             FieldSelection fields) {
    public AugmentOptions {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(resampler, "resampler");
        Objects.requireNonNull(pixels, "pixels");
        Objects.requireNonNull(fields, "fields");
        require(crop >= 1 && crop <= 8192, "crop must be 1..8192 pixels: " + crop);
        require(scaleMin > 0 && scaleMin <= scaleMax && scaleMax <= 1, "scale must satisfy 0 < min <= max <= 1");
        require(ratioMin > 0 && ratioMin <= ratioMax, "ratio must satisfy 0 < min <= max");
        require(flipProbability >= 0 && flipProbability <= 1, "flip probability must be 0..1");
        require(evalCropFraction > 0 && evalCropFraction <= 1, "eval crop fraction must be in (0, 1]");
    }

    /** Bytes of one image in a slot: {@code crop x crop x 3} values of {@link #pixels()}'s element type. */
    public long imageBytes() {
        return pixels.imageBytes(crop);
    }
}
