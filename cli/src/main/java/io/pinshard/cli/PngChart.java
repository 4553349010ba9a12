package io.pinshard.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.internal.chartpart.Chart;

/** Writes the CLI's XChart charts as PNG files (the sweep's, the report's). */
final class PngChart {
    private PngChart() {
    }

    /** Saves {@code chart} to {@code file}, creating its folder; ".png" is added when missing. Returns the file. */
    static Path save(Chart<?, ?> chart, Path file) throws IOException {
        Path absolute = file.toAbsolutePath();
        if (absolute.getParent() != null) {
            Files.createDirectories(absolute.getParent());
        }
        String name = absolute.toString();
        // XChart appends ".png" itself: hand it the name without one.
        BitmapEncoder.saveBitmap(chart, name.endsWith(".png") ? name.substring(0, name.length() - 4) : name,
            BitmapEncoder.BitmapFormat.PNG);
        return name.endsWith(".png") ? absolute : Path.of(name + ".png");
    }
}
