package io.pinshard.cli;

import io.pinshard.reader.CrcCheck;
import io.pinshard.loader.options.LoaderMode;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.PixelFormat;
import io.pinshard.loader.options.Resampler;
import io.pinshard.loader.options.SampleOrder;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The loader's options on the command line, shared by {@code bench} and {@code serve}. */
final class LoaderOptionsMixin {
    @Option(names = "--batch", defaultValue = "256", description = "Batch size (default ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--crop", defaultValue = "224", description = "Output side in pixels (default ${DEFAULT-VALUE}).")
    int crop;

    @Option(names = "--workers", description = "Worker threads (default: available processors).")
    Integer workers;

    @Option(names = "--prefetch", description = "Ring slots (default: max(2, 2 x workers)).")
    Integer prefetch;

    @Option(names = "--order", defaultValue = "random", description = "random, sequential or quasi-random (default ${DEFAULT-VALUE}).")
    String order;

    @Option(names = "--window", paramLabel = "N", description = "quasi-random: records per shard-local window "
        + "(default 1024).")
    Integer window;

    @Option(names = "--interleave", paramLabel = "N", description = "quasi-random: windows (of different shards) "
        + "shuffled together, 1-64 (default: chosen from the dataset, up to 16, so that a group's records fit "
        + "512 MiB; a streamed dataset's cache must hold a group's shards plus one).")
    Integer interleave;

    @Option(names = "--eval", description = "Eval mode: resize + centre crop instead of random-resized-crop + flip.")
    boolean eval;

    @Mixin
    CrcOption crc = new CrcOption();

    @Option(names = "--check-crc", description = "Same as --crc always.")
    boolean checkCrc;

    @Option(names = "--seed", defaultValue = "0", description = "Seed (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--rank", defaultValue = "0", description = "This process's rank (default ${DEFAULT-VALUE}).")
    int rank;

    @Option(names = "--world", defaultValue = "1", description = "Number of ranks (default ${DEFAULT-VALUE}).")
    int world;

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

    @Option(names = "--drop-last", description = "Drop the incomplete last batch instead of delivering it.")
    boolean dropLast;

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

    /**
     * A builder holding these options; callers add what is theirs (allocator, data-wait guard).
     *
     * @throws IllegalArgumentException naming the option when a range is not two numbers
     */
    LoaderOptions.Builder builder() {
        LoaderOptions.Builder builder = LoaderOptions.builder().batchSize(batch).crop(crop)
            .order(SampleOrder.parse(order)).seed(seed).distributed(rank, world)
            .crcCheck(checkCrc ? CrcCheck.ALWAYS : crc.mode())
            .mode(eval ? LoaderMode.EVAL : LoaderMode.TRAIN).resampler(Resampler.parse(resampler));
        if (workers != null) {
            builder.workers(workers);
        }
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
        builder.dropLast(dropLast);
        if (fields != null) {
            builder.fields(fields.toArray(String[]::new));
        }
        if (fieldBytes != null) {
            builder.fieldBytes(fieldBytes);
        }
        if (boxes != null) {
            builder.boxes(boxes, boxMinVisible);
        }
        if (prefetch != null) {
            builder.prefetch(prefetch);
        }
        if (window != null) {
            builder.quasiRandomWindow(window);
        }
        if (interleave != null) {
            builder.quasiRandomInterleave(interleave);
        }
        return builder.pixels(pixels());
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
