package io.pinshard.cli;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A progress line fitted to the terminal: its fields in the order they show, each with a rank, and one flexible bar;
 * when the line is wider than the terminal the bar shrinks (to {@value #MIN_BAR} columns), then fields go, lowest
 * rank first, bar included, so what stays is whole (a cut figure reads as another figure).
 */
final class TerminalLine {
    static final int MIN_BAR = 10;
    private static final int MAX_BAR = 30;

    private record Field(String text, int rank, boolean bar) {
    }

    private final List<Field> fields = new ArrayList<>();

    /** A field; higher ranks stay longer. */
    TerminalLine add(String text, int rank) {
        fields.add(new Field(text, rank, false));
        return this;
    }

    /** The bar, {@code fraction} done (0..1), drawn as wide as the terminal leaves room for, up to 30 columns. */
    TerminalLine bar(double fraction, int rank) {
        fields.add(new Field(Double.toString(Math.max(0, Math.min(1, fraction))), rank, true));
        return this;
    }

    /** The line in at most {@code columns - 1} columns (the last column would wrap on some terminals). */
    String fit(int columns) {
        int room = Math.max(1, columns - 1);
        List<Field> kept = new ArrayList<>(fields);
        while (true) {
            int fixed = -1;
            boolean hasBar = false;
            for (Field field : kept) {
                fixed += 1 + (field.bar ? 2 : field.text.length());
                hasBar |= field.bar;
            }
            if (fixed <= room && (!hasBar || room - fixed >= MIN_BAR)) {
                return render(kept, hasBar ? Math.min(MAX_BAR, room - fixed) : 0);
            }
            if (kept.size() == 1) {
                return kept.get(0).bar ? "" : kept.get(0).text.substring(0, Math.min(room, kept.get(0).text.length()));
            }
            Field lowest = kept.get(0);
            for (Field field : kept) {
                if (field.rank < lowest.rank) {
                    lowest = field;
                }
            }
            kept.remove(lowest);
        }
    }

    private static String render(List<Field> kept, int barWidth) {
        StringBuilder line = new StringBuilder();
        for (Field field : kept) {
            if (line.length() > 0) {
                line.append(' ');
            }
            if (field.bar) {
                int filled = (int) Math.round(Double.parseDouble(field.text) * barWidth);
                line.append('[').append("=".repeat(filled)).append(" ".repeat(barWidth - filled)).append(']');
            } else {
                line.append(field.text);
            }
        }
        return line.toString();
    }

    /** A rate with a digit before the point: "0.6", "12.3", "456" (never ".6"). */
    static String rate(double perSecond) {
        return perSecond < 100 ? String.format(Locale.ROOT, "%.1f", perSecond)
            : String.format(Locale.ROOT, "%.0f", perSecond);
    }

    /** Seconds as "42s", "3m07s", "1h02m". */
    static String duration(long seconds) {
        if (seconds < 60) {
            return seconds + "s";
        }
        if (seconds < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", seconds / 60, seconds % 60);
        }
        return String.format(Locale.ROOT, "%dh%02dm", seconds / 3600, seconds / 60 % 60);
    }

    /** The terminal's width in columns ({@code stty size} on /dev/tty), or 80 when it cannot be read. */
    static int terminalColumns() {
        try {
            Process stty = new ProcessBuilder("stty", "size").redirectInput(new File("/dev/tty"))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(stty.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            if (stty.waitFor(2, TimeUnit.SECONDS) && stty.exitValue() == 0) {
                String[] parts = out.split("\\s+");
                int columns = parts.length == 2 ? Integer.parseInt(parts[1]) : 0;
                if (columns > 0) {
                    return columns;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // no terminal to ask
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 80;
    }
}
