package io.pinshard.cli;

import java.util.Locale;

/** Human-readable sizes, and the wall-time line a command's report ends with. */
final class Units {
    private Units() {
    }

    /** "wall time: 1.23 s   45.6 UNIT/s": {@code amount} of UNIT over {@code seconds} (0 for an instant run). */
    static String wallTime(double seconds, double amount, String unit) {
        return String.format(Locale.ROOT, "wall time: %.2f s   %.1f %s/s", seconds, seconds > 0 ? amount / seconds : 0.0,
            unit);
    }

    static String bytes(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }
}
