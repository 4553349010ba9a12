package io.pinshard.writer.convert;

import java.util.Locale;

/** The {@code --shard-size} syntax (convert and the Spark data source): parses sizes such as {@code 268435456}, {@code 256MiB}, {@code 64M} or {@code 1GiB} (powers of 1024). */
public final class SizeParser {
    private SizeParser() {
    }

    public static long parse(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT).replace("IB", "").replace("B", "");
        long unit = 1;
        if (!t.isEmpty()) {
            char last = t.charAt(t.length() - 1);
            int shift = switch (last) {
                case 'K' -> 10;
                case 'M' -> 20;
                case 'G' -> 30;
                default -> 0;
            };
            if (shift > 0) {
                unit = 1L << shift;
                t = t.substring(0, t.length() - 1).trim();
            }
        }
        try {
            double value = Double.parseDouble(t);
            if (value <= 0 || Double.isNaN(value)) {
                throw new NumberFormatException();
            }
            return (long) Math.ceil(value * unit);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a size: '" + text + "' (e.g. 268435456, 256MiB, 64M, 1GiB)");
        }
    }
}
