package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.datawait.DataWaitMonitor;
import io.pinshard.datawait.StepLogWriter;
import io.pinshard.format.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pinshard report} over step logs of several jobs: a Java job's (written by the loader's monitor) and a
 * Python job's lines (the schema python/pinshard/_steplog.py writes), with torn and garbage lines among them.
 */
class ReportCommandTest {
    private static final long MS = 1_000_000;

    @TempDir
    Path temp;

    /** Two ranks of a job whose steps wait {@code waitMs} of every {@code stepMs}, through the Java monitor. */
    private void javaJob(Path folder, String job, long waitMs, long stepMs, int steps) {
        for (int rank = 0; rank < 2; rank++) {
            DataWaitMonitor monitor = new DataWaitMonitor("batches", "hint", 0.10, 50, 3);
            try (StepLogWriter log = StepLogWriter.open(folder + "/", job, rank, "/data/photos")) {
                monitor.stepLog(log);
                long now = 0;
                for (int step = 0; step <= steps + 3; step++) {
                    now += stepMs * MS;
                    monitor.record(waitMs * MS, now, 0, 64);
                }
            }
        }
    }

    /** A Python job's file: {@code steps} lines of 100 ms steps waiting 2 ms, the first two warm-up. */
    private static String pythonJob(String job, int steps) {
        StringBuilder lines = new StringBuilder();
        for (int step = 1; step <= steps; step++) {
            lines.append(String.format(java.util.Locale.ROOT, "{\"step\": %d, \"epoch\": 0, \"time\": 1764820000.%03d, "
                + "\"data_wait_s\": 0.002000, \"step_s\": 0.100000, \"data_wait_fraction\": 0.0200, \"gpu_util\": %s, "
                + "\"images\": 32, \"warmup\": %s, \"rank\": 0, \"job\": \"%s\", \"dataset\": \"/data/text\"}\n", step,
                step, step % 2 == 0 ? "90" : "null", step <= 2 ? "true" : "false", job));
        }
        return lines.toString();
    }

    @Test
    void jobsAreRankedByGpuHoursLostAndBadLinesAreCountedNotFatal() throws Exception {
        Path folder = Files.createDirectories(temp.resolve("logs/nested"));
        javaJob(folder, "starved", 30, 40, 100); // 75 % waiting, 2 ranks
        javaJob(folder, "mild", 5, 40, 20); // 12.5 %: past the threshold, but few hours lost
        Path python = folder.resolve("python.jsonl");
        Files.writeString(python, pythonJob("fed", 50) + "{\"step\": 51, \"epoch\": 0, \"data_wa\n"
            + "\u0000\u00ff not json\n[1, 2]\n{\"job\": \"fed\", \"rank\": 0, \"step\": 9, \"data_wait_s\": -1, "
            + "\"step_s\": 1}\n{\"job\": \"fed\", \"rank\": 0, \"step\": 9, \"data_wait_s\": 2, \"step_s\": 1}\n"
            + "{\"job\": \"fed\", \"rank\": \"0\", \"step\": 9, \"data_wait_s\": 0, \"step_s\": 1}\n"
            + "x".repeat(ReportCommand.MAX_LINE_CHARS + 1) + "\n" + pythonJob("fed", 0));
        Files.writeString(folder.resolve("notes.txt"), "not a step log: not read from a folder");

        CommandTestSupport.Result result = CommandTestSupport.run("report", temp.resolve("logs").toString(), "--json",
            "--chart", temp.resolve("report.png").toString());
        assertEquals(0, result.exitCode(), result.err());
        Map<String, Object> report = Json.parseObject(result.out().getBytes(StandardCharsets.UTF_8));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> jobs = (List<Map<String, Object>>) report.get("jobs");
        assertEquals(List.of("starved", "mild", "fed"), jobs.stream().map(j -> j.get("job")).toList());
        Map<String, Object> starved = jobs.get(0);
        assertEquals(2, starved.get("ranks"));
        assertEquals(200, ((Number) starved.get("steps")).intValue());
        assertEquals(6, ((Number) starved.get("warmup_steps")).intValue());
        assertEquals(75.0, ((Number) starved.get("data_wait_percent")).doubleValue(), 1e-9);
        assertEquals(200 * 0.040 / 3600, ((Number) starved.get("gpu_hours")).doubleValue(), 1e-12);
        assertEquals(200 * 0.030 / 3600, ((Number) starved.get("gpu_hours_lost")).doubleValue(), 1e-12);
        assertEquals(100 * 0.040 / 3600, ((Number) starved.get("wall_hours")).doubleValue(), 1e-12);
        assertNull(starved.get("mean_gpu_util"));
        assertEquals("loader-bound", starved.get("verdict"));
        // 64 images per 10 ms of computing: 6,400 images/s per GPU, on 2 GPUs
        assertEquals("pinshard bench /data/photos --sweep --gpu-rate 6400 --gpus 2", starved.get("next"));
        assertEquals("loader-bound", jobs.get(1).get("verdict"));
        Map<String, Object> fed = jobs.get(2);
        assertEquals("compute-bound", fed.get("verdict"));
        assertNull(fed.get("next"));
        assertEquals(48, ((Number) fed.get("steps")).intValue());
        assertEquals(90.0, ((Number) fed.get("mean_gpu_util")).doubleValue(), 1e-9);
        assertEquals(2.0, ((Number) fed.get("data_wait_percent")).doubleValue(), 1e-9);
        assertEquals(Map.of(python.toString(), 7), report.get("skipped_lines"));
        assertTrue(ImageIO.read(temp.resolve("report.png").toFile()).getWidth() > 100, "a PNG chart");

        CommandTestSupport.Result table = CommandTestSupport.run("report", temp.resolve("logs").toString());
        assertEquals(0, table.exitCode(), table.err());
        List<String> rows = table.out().lines().toList();
        assertTrue(rows.get(1).startsWith("starved ") && rows.get(1).endsWith(
            "loader-bound: pinshard bench /data/photos --sweep --gpu-rate 6400 --gpus 2"), rows.get(1));
        assertTrue(rows.get(3).startsWith("fed ") && rows.get(3).endsWith("compute-bound: nothing to do"), rows.get(3));
        assertTrue(rows.get(4).contains("skipped (torn or not step-log lines): " + python + " (7)"), rows.get(4));
    }

    @Test
    void nothingToReportIsAnErrorThatSaysWhy() throws Exception {
        Path garbage = Files.writeString(temp.resolve("torn.jsonl"), "{\"step\": 1, \"job\n");
        CommandTestSupport.Result result = CommandTestSupport.run("report", garbage.toString());
        assertEquals(1, result.exitCode());
        assertTrue(result.err().contains("no step-log lines in 1 file(s); skipped (torn or not step-log lines): "
            + garbage + " (1)"), result.err());
        assertEquals(2, CommandTestSupport.run("report", temp.resolve("missing").toString()).exitCode());
    }
}
