package io.pinshard.cli;

import io.pinshard.loader.options.LoaderMode;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.PixelFormat;
import io.pinshard.loader.options.Resampler;
import picocli.CommandLine.Option;

/**
 * The loader's augment group on the command line ({@link io.pinshard.loader.options.AugmentOptions}): what a record
 * becomes in its slot, the crop and its randomness, the pixels' format and the fields beside them.
 */
final class AugmentOptionsMixin {
    @Option(names = "--crop", defaultValue = "224", description = "Output side in pixels (default ${DEFAULT-VALUE}).")
    int crop;

    @Option(names = "--eval", description = "Eval mode: resize + centre crop instead of random-resized-crop + flip.")
    boolean eval;

    @Option(names = "--resampler", defaultValue = "auto", description = "Crop resampler: auto, vector (JDK Vector API;"
        + " needs --add-modules=jdk.incubator.vector, which ./pinshard passes) or opencv (default ${DEFAULT-VALUE}).")
    String resampler;

    // hideParamSyntax: picocli would show a split value as "MIN,MAX[,MIN,MAX...]", as if it took several ranges.
    @Option(names = "--scale", split = ",", arity = "1", paramLabel = "MIN,MAX", hideParamSyntax = true,
        description = "Train mode: random-resized-crop area fraction range (default 0.08,1.0, torchvision's).")
    double[] scale;

    @Option(names = "--ratio", split = ",", arity = "1", paramLabel = "MIN,MAX", hideParamSyntax = true,
        description = "Train mode: crop aspect ratio range, sampled log-uniformly (default 0.75,1.3333).")
    double[] ratio;

    @Option(names = "--flip", paramLabel = "P", description = "Train mode: horizontal flip probability (default 0.5).")
    Double flip;

    @Option(names = "--eval-crop-fraction", paramLabel = "F", description = "Eval mode: centre crop / resized shorter "
        + "side (default 0.875, i.e. Resize(256) + CenterCrop(224); 1.0 keeps the stored image whole).")
    Double evalCropFraction;

    @Option(names = "--fields", split = ",", paramLabel = "NAME[,NAME...]", hideParamSyntax = true,
        description = "Record fields each batch carries beside the pixels (docs/fields.md), e.g. caption,boxes; none by"
            + " default.")
    java.util.List<String> fields;

    @Option(names = "--field-bytes", paramLabel = "N", description = "Room per sample and field in a batch slot "
        + "(default 1024); a longer value fails with its record and field named.")
    Integer fieldBytes;

    @Option(names = "--boxes", paramLabel = "FIELD", description = "A float32 field of boxes (x0,y0,x1,y1 per box, "
        + "stored-image pixels) moved through each sample's crop and flip; must be among --fields.")
    String boxes;

    @Option(names = "--box-min-visible", paramLabel = "F", defaultValue = "0", description = "With --boxes: keep a "
        + "box when at least this share of its area stays in the crop (default ${DEFAULT-VALUE}: any visible part).")
    double boxMinVisible;

    @Option(names = "--dtype", defaultValue = "uint8", paramLabel = "TYPE", description = "What the batches' pixels "
        + "are: uint8 (the crop's bytes), or float32, float16 or bfloat16 written by the crop kernel, (x / 255 - mean) "
        + "/ std per channel (default ${DEFAULT-VALUE}).")
    String dtype;

    @Option(names = "--layout", defaultValue = "NHWC", paramLabel = "NHWC|NCHW", description = "Memory order of each "
        + "image: NHWC (RGB per pixel) or NCHW (three planes) (default ${DEFAULT-VALUE}).")
    String layout;

    @Option(names = "--mean", split = ",", paramLabel = "R,G,B", hideParamSyntax = true, description = "Float "
        + "dtypes: per-channel mean of a [0, 1] image, as torchvision's Normalize (default 0).")
    double[] mean;

    @Option(names = "--std", split = ",", paramLabel = "R,G,B", hideParamSyntax = true, description = "Float "
        + "dtypes: per-channel std of a [0, 1] image, each > 0 (default 1).")
    double[] std;

    /** @throws IllegalArgumentException naming the option when a range is not two numbers */
    void applyTo(LoaderOptions.Builder builder) {
        builder.crop(crop).mode(eval ? LoaderMode.EVAL : LoaderMode.TRAIN).resampler(Resampler.parse(resampler));
        if (scale != null) {
            builder.scale(pair("--scale", scale)[0], scale[1]);
        }
        if (ratio != null) {
            builder.ratio(pair("--ratio", ratio)[0], ratio[1]);
        }
        if (flip != null) {
            builder.flipProbability(flip);
        }
        if (evalCropFraction != null) {
            builder.evalCropFraction(evalCropFraction);
        }
        if (fields != null) {
            builder.fields(fields.toArray(String[]::new));
        }
        if (fieldBytes != null) {
            builder.fieldBytes(fieldBytes);
        }
        if (boxes != null) {
            builder.boxes(boxes, boxMinVisible);
        }
        builder.pixels(pixels());
    }

    /** --dtype, --layout, --mean and --std as a format (uint8 NHWC by default). */
    PixelFormat pixels() {
        PixelFormat.Layout order;
        try {
            order = PixelFormat.Layout.valueOf(layout.trim().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--layout must be NHWC or NCHW, not \"" + layout + "\"", e);
        }
        return PixelFormat.of(PixelFormat.parseDType(dtype), order, mean, std);
    }

    private static double[] pair(String option, double[] values) {
        if (values.length != 2) {
            throw new IllegalArgumentException(option + " takes two numbers, MIN,MAX: got " + values.length);
        }
        return values;
    }
}
