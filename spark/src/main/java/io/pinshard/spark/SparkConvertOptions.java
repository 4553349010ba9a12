package io.pinshard.spark;

import io.pinshard.writer.convert.AspectPolicy;
import io.pinshard.writer.convert.ConvertOptions;
import io.pinshard.writer.convert.OutputCodec;
import io.pinshard.writer.convert.SizeParser;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code pinshard convert}'s image options as data source options: the same names in camelCase ({@code --shorter-side}
 * is {@code shorterSide}), the same defaults, and the same validation, because they become the very {@link
 * ConvertOptions} convert builds (its constructor checks them, with convert's messages). {@code --workers} has no
 * counterpart: Spark's tasks are the workers.
 */
final class SparkConvertOptions {
    /** The option names, in {@code convert --help} order. */
    static final List<String> NAMES = List.of("shorterSide", "upscale", "maxAspect", "aspectPolicy", "reducingGap",
        "maxPixels", "codec", "jpegQuality", "shardSize");

    private SparkConvertOptions() {
    }

    /** The convert options among {@code options} (looked up case-insensitively), keyed by their canonical names. */
    static Map<String, String> pick(Map<String, String> options) {
        Map<String, String> lower = new LinkedHashMap<>();
        options.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), v));
        Map<String, String> picked = new LinkedHashMap<>();
        for (String name : NAMES) {
            String value = lower.get(name.toLowerCase(Locale.ROOT));
            if (value != null) {
                picked.put(name, value);
            }
        }
        return picked;
    }

    /** {@code --shorter-side} for {@code shorterSide}: the convert flag an option mirrors. */
    static String flag(String name) {
        return "--" + name.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
    }

    /**
     * Builds the options convert would build from the same flags.
     *
     * @param picked canonical names to values, as {@link #pick} returns
     * @throws IllegalArgumentException with convert's message when a value is out of range
     */
    static ConvertOptions parse(Map<String, String> picked) {
        ConvertOptions options = ConvertOptions.defaults().withWorkers(1);
        String value;
        if ((value = picked.get("shorterSide")) != null) {
            options = options.withShorterSide(integer("shorterSide", value));
        }
        if ((value = picked.get("upscale")) != null) {
            options = options.withUpscale(bool("upscale", value));
        }
        double maxAspect = options.maxAspect();
        AspectPolicy policy = options.aspectPolicy();
        if ((value = picked.get("maxAspect")) != null) {
            maxAspect = number("maxAspect", value);
        }
        if ((value = picked.get("aspectPolicy")) != null) {
            policy = AspectPolicy.parse(value);
        }
        options = options.withMaxAspect(maxAspect, policy);
        if ((value = picked.get("reducingGap")) != null) {
            options = options.withReducingGap(number("reducingGap", value));
        }
        if ((value = picked.get("maxPixels")) != null) {
            options = options.withMaxPixels(longInteger("maxPixels", value));
        }
        if ((value = picked.get("codec")) != null) {
            options = options.withCodec(OutputCodec.parse(value));
        }
        if ((value = picked.get("jpegQuality")) != null) {
            options = options.withJpegQuality(integer("jpegQuality", value));
        }
        if ((value = picked.get("shardSize")) != null) {
            options = options.withShardBytes(SizeParser.parse(value));
        }
        return options;
    }

    private static int integer(String name, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw notA("an integer", name, value);
        }
    }

    private static long longInteger(String name, String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw notA("an integer", name, value);
        }
    }

    private static double number(String name, String value) {
        try {
            return Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            throw notA("a number", name, value);
        }
    }

    private static boolean bool(String name, String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw notA("true or false", name, value);
        };
    }

    private static IllegalArgumentException notA(String what, String name, String value) {
        return new IllegalArgumentException("option " + name + " (" + flag(name) + ") must be " + what + ": '" + value + "'");
    }
}
