package io.pinshard.cli;

import io.pinshard.reader.Dataset;
import io.pinshard.loader.Loader;
import io.pinshard.loader.options.LoaderOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code pinshard bench DIR... --sweep}: the loader at 1..N workers on each dataset, measured as
 * {@code bench} measures one point; a table, a PNG chart and, given {@code --gpu-rate}, the workers the
 * GPUs need ("size workers to the cores per GPU").
 */
final class BenchSweep {
    private final BenchCommand bench;
    private final BenchSweepOptions sweep;
    private final PrintWriter out;
    private final int cores;

    BenchSweep(BenchCommand bench, BenchSweepOptions sweep, PrintWriter out, int cores) {
        this.bench = bench;
        this.sweep = sweep;
        this.out = out;
        this.cores = cores;
    }

    /** Runs every point; {@code base} gives everything but the worker count (and the prefetch, unless set). */
    int run(List<Path> directories, LoaderOptions base) throws IOException {
        int maxWorkers = sweep.maxWorkers != null ? sweep.maxWorkers : 2 * cores;
        // A prefetch the user did not set follows the worker count, as it does for one bench run.
        int prefetch = base.ring().prefetch();
        boolean defaultPrefetch = prefetch == Math.max(2, 2 * base.ring().workers());
        int batchSize = base.sampling().batchSize();
        int crop = base.augment().crop();
        out.printf(Locale.ROOT, "pinshard bench --sweep: 1..%d workers, batch %d, crop %d, %s order, %s; this machine"
            + " has %d cores%n", maxWorkers, batchSize, crop, base.sampling().order().label(),
            base.augment().mode().name().toLowerCase(Locale.ROOT), cores);
        out.printf(Locale.ROOT, "%-28s %7s %12s %10s %12s %16s%n", "shards", "workers", "images/s", "MB/s",
            "worker busy", "images/s/worker");
        out.flush();
        List<SweepChart.Curve> curves = new ArrayList<>();
        for (Path directory : directories) {
            try (Dataset dataset = Dataset.open(directory)) {
                String label = label(dataset);
                List<SweepSizing.Point> points = new ArrayList<>();
                for (int workers = 1; workers <= maxWorkers; workers++) {
                    LoaderOptions options = base.toBuilder().workers(workers)
                        .prefetch(defaultPrefetch ? -1 : prefetch).build();
                    Map<String, Object> result;
                    try (Loader loader = Loader.open(dataset, options)) {
                        result = bench.measure(dataset, loader, options, null);
                    }
                    double rate = (Double) result.get("images_per_s");
                    points.add(new SweepSizing.Point(workers, rate));
                    out.printf(Locale.ROOT, "%-28s %7d %,12.0f %,10.1f %11.0f%% %,16.0f%n", label, workers, rate,
                        (Double) result.get("mb_per_s"), (Double) result.get("worker_busy_pct"), rate / workers);
                    out.flush();
                }
                curves.add(new SweepChart.Curve(label, points));
            }
        }
        String title = String.format(Locale.ROOT, "pinshard loader: images/s vs workers (batch %d, crop %d, %d cores)",
            batchSize, crop, cores);
        Path chart = SweepChart.write(sweep.chart, title, curves, sweep.gpuRate, sweep.gpus, cores);
        out.printf(Locale.ROOT, "chart  %s%n", chart);
        if (sweep.gpuRate != null) {
            for (SweepChart.Curve curve : curves) {
                SweepSizing.Answer answer = SweepSizing.size(curve.points(), sweep.gpuRate, sweep.gpus, cores);
                out.println(SweepSizing.sentence(answer, curve.label(), sweep.gpuRate, sweep.gpus, cores));
            }
        }
        out.flush();
        return 0;
    }

    /** "jpeg shards (bench-320-x24/jpeg)": the codec the records hold and where they are. */
    private static String label(Dataset dataset) {
        Path dir = dataset.directory().toAbsolutePath().normalize();
        String where = dir.getParent() != null && dir.getParent().getFileName() != null
            ? dir.getParent().getFileName() + "/" + dir.getFileName() : String.valueOf(dir.getFileName());
        return codecOf(dataset) + " (" + where + ")";
    }

    private static String codecOf(Dataset dataset) {
        if (dataset.size() == 0) {
            return "empty";
        }
        return dataset.record(0, new io.pinshard.reader.RecordView()).codec().label();
    }
}
