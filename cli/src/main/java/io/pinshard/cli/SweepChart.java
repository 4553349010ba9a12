package io.pinshard.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The sweep's PNG: images/s against workers, one line per dataset, the line the GPUs need and this machine's core
 * count; the y axis is logarithmic when the GPUs' line is more than 5x above every measured point.
 */
final class SweepChart {
    /** One dataset's measured curve. */
    record Curve(String label, List<SweepSizing.Point> points) {
    }

    private SweepChart() {
    }

    /** Writes the chart to {@code file} (PNG; ".png" is added by XChart when missing, so we keep it on). */
    static Path write(Path file, String title, List<Curve> curves, Double gpuRate, int gpus, int cores) throws IOException {
        XYChart chart = new XYChartBuilder().width(900).height(560).title(title)
            .xAxisTitle("loader workers").yAxisTitle("images/s").build();
        chart.getStyler().setLegendVisible(true);
        chart.getStyler().setXAxisDecimalPattern("0");
        chart.getStyler().setYAxisDecimalPattern("#,##0");
        int maxWorkers = 1;
        double maxMeasured = 0;
        double minMeasured = Double.MAX_VALUE;
        boolean allPositive = true;
        for (Curve curve : curves) {
            double[] x = new double[curve.points().size()];
            double[] y = new double[x.length];
            for (int i = 0; i < x.length; i++) {
                x[i] = curve.points().get(i).workers();
                y[i] = curve.points().get(i).imagesPerSecond();
                maxWorkers = Math.max(maxWorkers, curve.points().get(i).workers());
                maxMeasured = Math.max(maxMeasured, y[i]);
                minMeasured = Math.min(minMeasured, y[i]);
                allPositive &= y[i] > 0;
            }
            chart.addSeries(curve.label(), x, y).setMarker(SeriesMarkers.CIRCLE);
        }
        double need = gpuRate != null ? gpuRate * gpus : 0;
        double maxRate = Math.max(maxMeasured, need);
        // A need far above what this machine measures would flatten the curves on a linear axis (a log axis
        // cannot show a zero, so a point at 0 images/s keeps it linear).
        boolean log = need > 5 * maxMeasured && allPositive && !curves.isEmpty();
        chart.getStyler().setYAxisLogarithmic(log);
        double bottom = log ? minMeasured / 2 : 0;
        if (gpuRate != null) {
            XYSeries line = chart.addSeries(String.format(Locale.ROOT, "%d GPU%s x %,.0f images/s = %,.0f", gpus,
                gpus == 1 ? "" : "s", gpuRate, need), new double[] {1, maxWorkers}, new double[] {need, need});
            line.setMarker(SeriesMarkers.NONE).setLineStyle(SeriesLines.DASH_DASH);
        }
        if (cores <= maxWorkers) { // past this line workers share cores: the curve flattens there
            chart.addSeries("this machine's " + cores + " core" + (cores == 1 ? "" : "s"), new double[] {cores, cores},
                new double[] {bottom, maxRate}).setMarker(SeriesMarkers.NONE).setLineStyle(SeriesLines.DOT_DOT);
        }
        return PngChart.save(chart, file);
    }
}
