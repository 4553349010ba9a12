package io.pinshard.loader;

import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * scripts/bench-scale.sh's chart: every cost {@link ScaleBench} measures against records (left: the sizes at about
 * the shard count of the largest dataset) and against shards (right: the sizes with the fewest records), both axes
 * logarithmic, side by side in one PNG. Costs of different units share a panel; each series names its unit.
 */
final class ScaleChart {
    /** Figure key, series label, factor from the key's unit to the label's. */
    private record Cost(String key, String label, double factor) {
    }

    private static final List<Cost> COSTS = List.of(
        new Cost("datasetOpenMs", "Dataset.open (ms)", 1),
        new Cost("loaderOpenMs", "Loader.open (ms)", 1),
        new Cost("toFirstBatchMs", "open to first batch (ms)", 1),
        new Cost("heapAfterOpenMb", "heap after Dataset.open (MB)", 1),
        new Cost("heapAfterLoaderOpenMb", "heap after Loader.open (MB)", 1),
        new Cost("rssAnonAfterOpenMb", "RssAnon after open (MB)", 1),
        new Cost("planRandomBytes", "random plan memory (KB)", 1e-3),
        new Cost("planQuasiRandomBytes", "quasi-random plan memory (KB)", 1e-3),
        new Cost("planQuasiRandomPrepareMs", "quasi-random plan prepare per epoch (ms)", 1),
        new Cost("planRandomLookupNs", "random plan look-up per sample (ns)", 1),
        new Cost("planQuasiRandomLookupNs", "quasi-random plan look-up per sample (ns)", 1));

    private ScaleChart() {
    }

    /** Reads the {@code run=warm} lines of {@code results} and writes the chart to {@code png}. */
    static void write(Path results, Path png) throws IOException {
        List<Map<String, String>> points = new ArrayList<>();
        for (String line : Files.readAllLines(results)) {
            Map<String, String> figures = new HashMap<>();
            for (String pair : line.trim().split("\\s+")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    figures.put(pair.substring(0, eq), pair.substring(eq + 1));
                }
            }
            if ("warm".equals(figures.get("run"))) {
                points.add(figures);
            }
        }
        if (points.isEmpty()) {
            throw new IOException(results + " holds no run=warm line of ScaleBench measure");
        }
        Map<String, String> largest = points.stream().max(Comparator.comparingDouble(p -> number(p, "records")))
            .orElseThrow();
        double shardsOfLargest = number(largest, "shards");
        double fewestRecords = points.stream().mapToDouble(p -> number(p, "records")).min().orElseThrow();
        XYChart byRecords = panel(points, "records", String.format(Locale.ROOT, "against records (%,d to %,d shards)",
            (long) (shardsOfLargest / 2), (long) (shardsOfLargest * 2)), p -> number(p, "shards") >= shardsOfLargest / 2
            && number(p, "shards") <= shardsOfLargest * 2);
        XYChart byShards = panel(points, "shards", String.format(Locale.ROOT, "against shards (%,d records)", (long) fewestRecords),
            p -> number(p, "records") == fewestRecords);
        BufferedImage left = BitmapEncoder.getBufferedImage(byRecords);
        BufferedImage right = BitmapEncoder.getBufferedImage(byShards);
        BufferedImage both = new BufferedImage(left.getWidth() + right.getWidth(),
            Math.max(left.getHeight(), right.getHeight()), BufferedImage.TYPE_INT_RGB);
        Graphics2D g = both.createGraphics();
        g.drawImage(left, 0, 0, null);
        g.drawImage(right, left.getWidth(), 0, null);
        g.dispose();
        Path absolute = png.toAbsolutePath();
        if (absolute.getParent() != null) {
            Files.createDirectories(absolute.getParent());
        }
        ImageIO.write(both, "png", absolute.toFile());
        System.out.println("chart " + absolute);
    }

    private static XYChart panel(List<Map<String, String>> points, String axis, String title,
                                 Predicate<Map<String, String>> chosen) {
        List<Map<String, String>> picked = points.stream().filter(chosen)
            .sorted(Comparator.comparingDouble(p -> number(p, axis))).toList();
        XYChart chart = new XYChartBuilder().width(760).height(760).title("pinshard at scale: cost " + title)
            .xAxisTitle(axis).yAxisTitle("cost (unit in the legend)").build();
        chart.getStyler().setXAxisLogarithmic(true);
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setXAxisDecimalPattern("#,##0");
        chart.getStyler().setLegendVisible(true);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        for (Cost cost : COSTS) {
            List<Double> x = new ArrayList<>();
            List<Double> y = new ArrayList<>();
            for (Map<String, String> p : picked) {
                double value = p.containsKey(cost.key()) ? number(p, cost.key()) * cost.factor() : 0;
                if (value > 0) { // a log axis shows no zero
                    x.add(number(p, axis));
                    y.add(value);
                }
            }
            if (!x.isEmpty()) {
                chart.addSeries(cost.label(), x, y).setMarker(SeriesMarkers.CIRCLE);
            }
        }
        return chart;
    }

    private static double number(Map<String, String> point, String key) {
        return Double.parseDouble(point.getOrDefault(key, "0"));
    }
}
