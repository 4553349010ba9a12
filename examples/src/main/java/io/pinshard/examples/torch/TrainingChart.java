package io.pinshard.examples.torch;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** A PNG line chart (XChart) of a {@link StepLog}: training loss (left axis) and data-wait % (right axis) per step. */
public final class TrainingChart {
    private TrainingChart() {
    }

    /** Writes the chart of {@code log} to {@code png}, titled {@code title}. */
    public static void write(StepLog log, String title, Path png) throws IOException {
        System.setProperty("java.awt.headless", "true"); // no display on training machines
        int n = log.steps();
        if (n == 0) {
            throw new IllegalArgumentException("no steps to chart");
        }
        double[] step = new double[n];
        double[] loss = new double[n];
        double[] wait = new double[n];
        for (int i = 0; i < n; i++) {
            step[i] = i;
            loss[i] = log.loss(i);
            wait[i] = log.waitPercent(i);
        }
        XYChart chart = new XYChartBuilder().width(1200).height(600).title(title)
            .xAxisTitle("training step").yAxisTitle("training loss (cross-entropy)").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        chart.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
        XYSeries lossSeries = chart.addSeries("training loss", step, loss);
        lossSeries.setMarker(SeriesMarkers.NONE);
        XYSeries waitSeries = chart.addSeries("data-wait % of step time", step, wait);
        waitSeries.setMarker(SeriesMarkers.NONE);
        waitSeries.setYAxisGroup(1);
        chart.setYAxisGroupTitle(1, "data-wait % of step time");
        Path parent = png.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (OutputStream out = Files.newOutputStream(png)) {
            BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
        }
    }
}
