package io.pinshard.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

/** {@code pinshard report --chart}: each job's GPU hours as a stacked bar, computing and waiting for data. */
final class ReportChart {
    /** Bars drawn at most (the jobs that lost the most). */
    static final int MAX_JOBS = 30;

    private ReportChart() {
    }

    /** Writes the chart of {@code jobs} (in the report's order) to {@code file}, PNG; returns the file written. */
    static Path write(Path file, List<ReportCommand.Job> jobs) throws IOException {
        List<ReportCommand.Job> shown = jobs.subList(0, Math.min(MAX_JOBS, jobs.size()));
        CategoryChart chart = new CategoryChartBuilder().width(900).height(560)
            .title("GPU hours per job, most lost to data-wait first").xAxisTitle("job").yAxisTitle("GPU hours").build();
        chart.getStyler().setStacked(true);
        chart.getStyler().setLegendVisible(true);
        chart.getStyler().setXAxisLabelRotation(30);
        List<String> names = new ArrayList<>();
        List<Double> computing = new ArrayList<>();
        List<Double> waiting = new ArrayList<>();
        for (ReportCommand.Job job : shown) {
            names.add(job.name);
            computing.add(job.gpuHours() - job.lostHours());
            waiting.add(job.lostHours());
        }
        chart.addSeries("waiting for data (lost)", names, waiting);
        chart.addSeries("computing", names, computing);
        return PngChart.save(chart, file);
    }
}
