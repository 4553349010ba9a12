package io.pinshard.writer.convert;

import io.pinshard.writer.DatasetWriterOptions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How images are converted.
 *
 * @param shorterSide  the shorter side of every output, in pixels (images smaller than this are kept
 *                     as they are unless {@code upscale})
 * @param upscale      enlarge images whose shorter side is below {@code shorterSide}
 * @param maxAspect    longest allowed longer/shorter side ratio; 0 disables the check
 * @param aspectPolicy what happens past {@code maxAspect}
 * @param codec        how pixels are stored
 * @param jpegQuality  1..100, for {@link OutputCodec#JPEG}
 * @param shardBytes   target shard size
 * @param workers      decode/resize/compress threads (output does not depend on it)
 * @param maxInputBytes inputs larger than this are rejected without being read
 * @param reducingGap  a JPEG is decoded at the largest DCT scale (1/8, 1/4, 1/2) that leaves its shorter
 *                     side at least {@code reducingGap * shorterSide}, then area-resized; 1 = the plain
 *                     "at or above the target" rule, 0 = always decode at full size. The default, 2 (as
 *                     Pillow's {@code thumbnail(reducing_gap=2.0)}), keeps a 2x area resize after the DCT
 *                     scaling: on real photos a 1/4 scale straight to 1.25x the target lost up to 1.5 dB
 *                     PSNR below the 35 dB guard, a 2x gap stays above 43 dB.
 * @param maxPixels    an input whose header declares more than this many pixels (height x width) is
 *                     rejected before it is decoded: the decompression-bomb guard. The default,
 *                     {@link #DEFAULT_MAX_PIXELS}, is Pillow's {@code Image.MAX_IMAGE_PIXELS}; at it one
 *                     decoded image takes up to 268 MB as 8-bit RGB and 716 MB as 16-bit RGBA, per worker.
 */
public record ConvertOptions(int shorterSide, boolean upscale, double maxAspect, AspectPolicy aspectPolicy,
                             OutputCodec codec, int jpegQuality, long shardBytes, int workers, long maxInputBytes,
                             double reducingGap, long maxPixels) {
    public static final int DEFAULT_SHORTER_SIDE = 320;
    public static final int DEFAULT_JPEG_QUALITY = 90;
    public static final long DEFAULT_MAX_INPUT_BYTES = 1L << 30;
    public static final double DEFAULT_REDUCING_GAP = 2.0;
    /** Pillow's decompression-bomb limit, {@code Image.MAX_IMAGE_PIXELS}: 1 GiB / 4 bytes / 3. */
    public static final long DEFAULT_MAX_PIXELS = (1L << 30) / 4 / 3;
    /** OpenCV refuses larger images itself (CV_IO_MAX_IMAGE_PIXELS), so a higher limit would only mislead. */
    public static final long MAX_MAX_PIXELS = 1L << 30;
    /** The background alpha is composited on: opaque white, as an image viewer shows a transparent PNG on a page. */
    public static final int[] ALPHA_BACKGROUND_RGB = {255, 255, 255};

    public ConvertOptions {
        if (shorterSide < 1 || shorterSide > 65535) {
            throw new IllegalArgumentException("--shorter-side must be between 1 and 65535: " + shorterSide);
        }
        if (maxAspect != 0 && maxAspect < 1) {
            throw new IllegalArgumentException("--max-aspect must be 0 (off) or at least 1: " + maxAspect);
        }
        if (jpegQuality < 1 || jpegQuality > 100) {
            throw new IllegalArgumentException("--jpeg-quality must be between 1 and 100: " + jpegQuality);
        }
        if (workers < 1) {
            throw new IllegalArgumentException("--workers must be at least 1: " + workers);
        }
        if (maxInputBytes < 1 || maxInputBytes > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("maximum input size must be between 1 and 2 GiB: " + maxInputBytes);
        }
        if (reducingGap != 0 && !(reducingGap >= 1 && reducingGap <= 64)) {
            throw new IllegalArgumentException("--reducing-gap must be 0 (no reduced decoding) or between 1 and 64: " + reducingGap);
        }
        if (maxPixels < 1 || maxPixels > MAX_MAX_PIXELS) {
            throw new IllegalArgumentException("--max-pixels must be between 1 and " + MAX_MAX_PIXELS
                + " (OpenCV's own limit): " + maxPixels);
        }
        DatasetWriterOptions.defaults().withTargetShardBytes(shardBytes); // validates the size
    }

    public static ConvertOptions defaults() {
        return new ConvertOptions(DEFAULT_SHORTER_SIDE, false, 0, AspectPolicy.CROP, OutputCodec.AUTO,
            DEFAULT_JPEG_QUALITY, DatasetWriterOptions.DEFAULT_TARGET_SHARD_BYTES,
            Runtime.getRuntime().availableProcessors(), DEFAULT_MAX_INPUT_BYTES, DEFAULT_REDUCING_GAP, DEFAULT_MAX_PIXELS);
    }

    public ConvertOptions withShorterSide(int value) {
        return new ConvertOptions(value, upscale, maxAspect, aspectPolicy, codec, jpegQuality, shardBytes, workers, maxInputBytes, reducingGap, maxPixels);
    }

    public ConvertOptions withUpscale(boolean value) {
        return new ConvertOptions(shorterSide, value, maxAspect, aspectPolicy, codec, jpegQuality, shardBytes, workers, maxInputBytes, reducingGap, maxPixels);
    }

    public ConvertOptions withMaxAspect(double value, AspectPolicy policy) {
        return new ConvertOptions(shorterSide, upscale, value, policy, codec, jpegQuality, shardBytes, workers, maxInputBytes, reducingGap, maxPixels);
    }

    public ConvertOptions withCodec(OutputCodec value) {
        return new ConvertOptions(shorterSide, upscale, maxAspect, aspectPolicy, value, jpegQuality, shardBytes, workers, maxInputBytes, reducingGap, maxPixels);
    }

    public ConvertOptions withJpegQuality(int value) {
        return new ConvertOptions(shorterSide, upscale, maxAspect, aspectPolicy, codec, value, shardBytes, workers, maxInputBytes, reducingGap, maxPixels);
    }

    public ConvertOptions withShardBytes(long value) {
        return new ConvertOptions(shorterSide, upscale, maxAspect, aspectPolicy, codec, jpegQuality, value, workers, maxInputBytes, reducingGap, maxPixels);
    }

    public ConvertOptions withWorkers(int value) {
        return new ConvertOptions(shorterSide, upscale, maxAspect, aspectPolicy, codec, jpegQuality, shardBytes, value, maxInputBytes, reducingGap, maxPixels);
    }

    public ConvertOptions withReducingGap(double value) {
        return new ConvertOptions(shorterSide, upscale, maxAspect, aspectPolicy, codec, jpegQuality, shardBytes, workers, maxInputBytes, value, maxPixels);
    }

    public ConvertOptions withMaxPixels(long value) {
        return new ConvertOptions(shorterSide, upscale, maxAspect, aspectPolicy, codec, jpegQuality, shardBytes, workers, maxInputBytes, reducingGap, value);
    }

    /**
     * The writer options of a conversion into {@code classes}: these options' shard size and preprocessing, as
     * {@code convert} and the Spark data source's tasks and job commit all write them.
     */
    public DatasetWriterOptions writerOptions(List<String> classes) {
        return DatasetWriterOptions.defaults().withTargetShardBytes(shardBytes).withClasses(classes)
            .withPreprocessing(preprocessing());
    }

    /**
     * The options that shape the output, as stored in every shard's metadata and the manifest. The
     * worker count is left out on purpose: it never changes a byte of the output.
     */
    public Map<String, Object> preprocessing() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("shorterSide", shorterSide);
        map.put("upscale", upscale);
        map.put("maxAspect", maxAspect);
        map.put("aspectPolicy", aspectPolicy.name().toLowerCase(java.util.Locale.ROOT));
        map.put("codec", codec.label());
        if (codec == OutputCodec.JPEG) {
            map.put("jpegQuality", jpegQuality);
        }
        map.put("reducingGap", reducingGap);
        map.put("maxPixels", maxPixels);
        map.put("resize", "opencv INTER_AREA after reduced-size JPEG decode");
        map.put("channels", "RGB uint8, alpha composited on white, 16-bit scaled by 1/257");
        return map;
    }
}
