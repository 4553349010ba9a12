package io.pinshard.cli;

import io.pinshard.format.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code pinshard report LOG...}: the fleet review of step logs (the JSON lines {@code PinshardDataset(step_log=)}
 * and the Java loader's {@code PINSHARD_STEP_LOG} write): one row per job, sorted by the GPU hours it lost waiting
 * for data, with a verdict and the next command for a loader-bound job. Steps marked {@code "warmup": true} (the
 * guard's first window: JIT, first batches) are counted apart and left out of the times.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
    description = {"Review step logs (PinshardDataset(step_log=...) or PINSHARD_STEP_LOG, Python or Java) of any "
        + "number of jobs: one row per job, sorted by GPU hours lost to data-wait, with a verdict (loader-bound: "
        + "the sweep to run; compute-bound: nothing to do).",
        "Torn or garbage lines are skipped and counted."})
final class ReportCommand implements Callable<Integer> {
    /** Lines longer than this are not step-log lines (a step line is a few hundred bytes). */
    static final int MAX_LINE_CHARS = 64 * 1024;

    @Parameters(arity = "1..*", paramLabel = "LOG", description = "Step-log files, or folders: their *.jsonl files, "
        + "recursively.")
    List<Path> logs;

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    boolean json;

    @Option(names = "--chart", paramLabel = "FILE.png", description = "Also write a PNG bar chart of each job's GPU "
        + "hours, computing and waiting for data.")
    Path chart;

    @Option(names = "--threshold", paramLabel = "PERCENT", defaultValue = "10", description = "Data-wait share of "
        + "GPU time above which a job is loader-bound (default ${DEFAULT-VALUE}).")
    double thresholdPercent;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** One job's steps, summed. */
    static final class Job {
        final String name;
        final TreeSet<Integer> ranks = new TreeSet<>();
        final Map<Integer, Double> stepSecondsByRank = new LinkedHashMap<>();
        String dataset;
        long steps;
        long warmupSteps;
        long images;
        double stepSeconds;
        double waitSeconds;
        double gpuUtilSum;
        long gpuUtilCount;

        Job(String name) {
            this.name = name;
        }

        double wallHours() {
            return stepSecondsByRank.values().stream().mapToDouble(Double::doubleValue).max().orElse(0) / 3600;
        }

        double gpuHours() {
            return stepSeconds / 3600;
        }

        double lostHours() {
            return waitSeconds / 3600;
        }

        double waitPercent() {
            return stepSeconds > 0 ? 100 * waitSeconds / stepSeconds : 0;
        }

        /** Images per second one GPU trains at when fed (its steps' time without the data wait). */
        double gpuRate() {
            double computing = stepSeconds - waitSeconds;
            return computing > 0 ? images / computing : 0;
        }

        Double meanGpuUtil() {
            return gpuUtilCount == 0 ? null : gpuUtilSum / gpuUtilCount;
        }
    }

    /** What the logs held. */
    record Review(List<Job> jobs, long lines, Map<Path, Long> skipped) {
    }

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!(thresholdPercent > 0 && thresholdPercent < 100)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--threshold must be in (0, 100): "
                + thresholdPercent);
        }
        List<Path> files = new ArrayList<>();
        for (Path log : logs) {
            if (Files.isDirectory(log)) {
                try (Stream<Path> walk = Files.walk(log)) {
                    walk.filter(p -> Files.isRegularFile(p) && p.getFileName().toString().endsWith(".jsonl"))
                        .sorted().forEach(files::add);
                }
            } else if (Files.isRegularFile(log)) {
                files.add(log);
            } else {
                throw new CommandLine.ParameterException(spec.commandLine(), "no such step log or folder: " + log);
            }
        }
        Review review = read(files);
        if (review.jobs().isEmpty()) {
            err.println("pinshard report: no step-log lines in " + files.size() + " file(s)"
                + skippedText(review.skipped()));
            err.flush();
            return 1;
        }
        if (json) {
            out.print(new String(Json.pretty(toJson(review)), StandardCharsets.UTF_8));
        } else {
            printTable(out, review);
        }
        if (chart != null) {
            Path written = ReportChart.write(chart, review.jobs());
            (json ? err : out).println("chart: " + written);
        }
        out.flush();
        err.flush();
        return 0;
    }

    /** Reads every file's lines into jobs, sorted by GPU hours lost (most first); bad lines are counted. */
    static Review read(List<Path> files) {
        Map<String, Job> jobs = new LinkedHashMap<>();
        Map<Path, Long> skipped = new LinkedHashMap<>();
        long lines = 0;
        for (Path file : files) {
            long bad = 0;
            var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
            try (BufferedReader reader = new BufferedReader(new java.io.InputStreamReader(Files.newInputStream(file),
                decoder))) {
                String line;
                while ((line = reader.readLine()) != null) {
                    if (line.isBlank()) {
                        continue;
                    }
                    lines++;
                    if (line.length() > MAX_LINE_CHARS || !add(jobs, line)) {
                        bad++;
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("step log " + file + ": " + e.getMessage(), e);
            }
            if (bad > 0) {
                skipped.put(file, bad);
            }
        }
        List<Job> sorted = new ArrayList<>(jobs.values());
        sorted.sort(Comparator.comparingDouble(Job::lostHours).reversed().thenComparing(j -> j.name));
        return new Review(sorted, lines, skipped);
    }

    /** Adds one line's step to its job; false when it is not a step-log line. */
    private static boolean add(Map<String, Job> jobs, String line) {
        Map<String, Object> step;
        try {
            step = Json.parseObject(line.getBytes(StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException notJson) {
            return false;
        }
        if (step == null || !(step.get("job") instanceof String job) || job.isEmpty()
            || !(step.get("rank") instanceof Integer rank) || rank < 0
            || !(step.get("step") instanceof Number) || !(step.get("data_wait_s") instanceof Number wait)
            || !(step.get("step_s") instanceof Number stepTime)) {
            return false;
        }
        double waitSeconds = wait.doubleValue();
        double stepSeconds = stepTime.doubleValue();
        if (!(waitSeconds >= 0 && stepSeconds >= waitSeconds && stepSeconds < 1e7)) {
            return false; // NaN, negative, a wait longer than its step, a step of months
        }
        Object images = step.get("images");
        Object gpu = step.get("gpu_util");
        Object warmup = step.get("warmup");
        if (warmup != null && !(warmup instanceof Boolean)
            || images != null && !(images instanceof Integer n && n >= 0)
            || gpu != null && !(gpu instanceof Number g && g.doubleValue() >= 0 && g.doubleValue() <= 100)) {
            return false;
        }
        Job entry = jobs.computeIfAbsent(job, Job::new);
        entry.ranks.add(rank);
        if (Boolean.TRUE.equals(step.get("warmup"))) {
            entry.warmupSteps++; // the guard's warm-up (JIT, first batches): counted, left out of the sums
            return true;
        }
        entry.steps++;
        entry.stepSeconds += stepSeconds;
        entry.waitSeconds += waitSeconds;
        entry.stepSecondsByRank.merge(rank, stepSeconds, Double::sum);
        if (images != null) {
            entry.images += (Integer) images;
        }
        if (gpu != null) {
            entry.gpuUtilSum += ((Number) gpu).doubleValue();
            entry.gpuUtilCount++;
        }
        if (entry.dataset == null && step.get("dataset") instanceof String dataset && !dataset.isEmpty()) {
            entry.dataset = dataset;
        }
        return true;
    }

    /** The verdict's command: the sweep that finds the workers this job's GPUs need. */
    String sweepCommand(Job job) {
        return String.format(Locale.ROOT, "pinshard bench %s --sweep --gpu-rate %.0f --gpus %d",
            job.dataset == null ? "DATASET" : shellWord(job.dataset), job.gpuRate(), job.ranks.size());
    }

    boolean loaderBound(Job job) {
        return job.waitPercent() > thresholdPercent;
    }

    private Map<String, Object> toJson(Review review) {
        List<Object> rows = new ArrayList<>();
        for (Job job : review.jobs()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("job", job.name);
            row.put("dataset", job.dataset);
            row.put("ranks", job.ranks.size());
            row.put("steps", job.steps);
            row.put("warmup_steps", job.warmupSteps);
            row.put("images", job.images);
            row.put("wall_hours", job.wallHours());
            row.put("gpu_hours", job.gpuHours());
            row.put("gpu_hours_lost", job.lostHours());
            row.put("data_wait_percent", job.waitPercent());
            row.put("mean_gpu_util", job.meanGpuUtil());
            row.put("verdict", loaderBound(job) ? "loader-bound" : "compute-bound");
            row.put("next", loaderBound(job) ? sweepCommand(job) : null);
            rows.add(row);
        }
        Map<String, Object> skipped = new LinkedHashMap<>();
        review.skipped().forEach((file, count) -> skipped.put(file.toString(), count));
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("jobs", rows);
        result.put("lines", review.lines());
        result.put("skipped_lines", skipped);
        result.put("threshold_percent", thresholdPercent);
        return result;
    }

    private void printTable(PrintWriter out, Review review) {
        out.printf(Locale.ROOT, "%-32s %5s %8s %9s %9s %8s %9s %10s  %s%n", "job", "ranks", "steps", "wall", "GPU time",
            "GPU util", "data-wait", "GPU lost", "verdict");
        for (Job job : review.jobs()) {
            Double util = job.meanGpuUtil();
            out.printf(Locale.ROOT, "%-32s %5d %8d %9s %9s %8s %8.1f%% %10s  %s%n", job.name, job.ranks.size(),
                job.steps, duration(job.wallHours()), duration(job.gpuHours()),
                util == null ? "-" : String.format(Locale.ROOT, "%.0f %%", util), job.waitPercent(),
                duration(job.lostHours()), loaderBound(job) ? "loader-bound: " + sweepCommand(job)
                    : "compute-bound: nothing to do");
        }
        long warmup = review.jobs().stream().mapToLong(j -> j.warmupSteps).sum();
        out.println(review.lines() + " lines read, " + warmup + " warm-up steps left out" + skippedText(review.skipped()));
    }

    private static String skippedText(Map<Path, Long> skipped) {
        if (skipped.isEmpty()) {
            return "";
        }
        StringBuilder text = new StringBuilder("; skipped (torn or not step-log lines): ");
        String separator = "";
        for (Map.Entry<Path, Long> entry : skipped.entrySet()) {
            text.append(separator).append(entry.getKey()).append(" (").append(entry.getValue()).append(')');
            separator = ", ";
        }
        return text.toString();
    }

    /** {@code text} as one shell word: as it is when plain, else single-quoted. */
    static String shellWord(String text) {
        return text.matches("[A-Za-z0-9_./:=@%+,-]+") ? text : "'" + text.replace("'", "'\\''") + "'";
    }

    /** Hours as "12.3 s", "4.5 min" or "6.78 h". */
    static String duration(double hours) {
        double seconds = hours * 3600;
        return seconds < 60 ? String.format(Locale.ROOT, "%.1f s", seconds)
            : seconds < 3600 ? String.format(Locale.ROOT, "%.1f min", seconds / 60)
            : String.format(Locale.ROOT, "%.2f h", hours);
    }
}
