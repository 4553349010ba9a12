package io.pinshard.datawait;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.memory.HeapRounds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The monitor's step log: the lines of the schema the Python path writes, appended without heap per step. */
class StepLogWriterTest {
    private static final long MS = 1_000_000;

    @TempDir
    Path temp;

    @Test
    void eachStepIsOneLineOfTheSharedSchema() throws Exception {
        DataWaitMonitor monitor = new DataWaitMonitor("test batches", "hint", 0.10, 50, 2);
        int[] gpu = {41};
        monitor.gpuPercent(() -> gpu[0]++);
        try (StepLogWriter log = StepLogWriter.open(temp.toString(), "night \"run\"", 3, "/data/train")) {
            monitor.stepLog(log);
            monitor.record(7 * MS, 10 * MS, 0, 256); // the first wait: no step before it, no line
            monitor.record(1_234_567, 30 * MS, 0, 256);
            monitor.record(0, 60 * MS, 1, 100);
            monitor.record(40 * MS, 2_060 * MS, 1, 256);
        }
        List<String> lines = Files.readAllLines(temp.resolve("night \"run\"-rank3.jsonl"));
        assertEquals(3, lines.size());
        String suffix = ", \"rank\": 3, \"job\": \"night \\\"run\\\"\", \"dataset\": \"/data/train\"}";
        assertEquals(List.of(
            "{\"step\": 1, \"epoch\": 0, \"time\": T, \"data_wait_s\": 0.001234, \"step_s\": 0.020000, "
                + "\"data_wait_fraction\": 0.0617, \"gpu_util\": 41, \"images\": 256, \"warmup\": true" + suffix,
            "{\"step\": 2, \"epoch\": 1, \"time\": T, \"data_wait_s\": 0.000000, \"step_s\": 0.030000, "
                + "\"data_wait_fraction\": 0.0000, \"gpu_util\": 41, \"images\": 100, \"warmup\": true" + suffix,
            "{\"step\": 3, \"epoch\": 1, \"time\": T, \"data_wait_s\": 0.040000, \"step_s\": 2.000000, "
                + "\"data_wait_fraction\": 0.0200, \"gpu_util\": 42, \"images\": 256, \"warmup\": false" + suffix),
            lines.stream().map(l -> l.replaceFirst("\"time\": \\d+\\.\\d{3}", "\"time\": T")).toList(),
            "gpu_util sampled at most once a second of step time");
        double time = Double.parseDouble(lines.get(0).replaceFirst(".*\"time\": (\\d+\\.\\d{3}).*", "$1"));
        assertTrue(Math.abs(time - System.currentTimeMillis() / 1000.0) < 600, "Unix seconds: " + time);
    }

    @Test
    void stepsAllocateNothingWhileTheyAreLogged() throws Exception {
        DataWaitMonitor monitor = new DataWaitMonitor("test batches", "hint", 0.10, 50, 0);
        Path file = temp.resolve("log.jsonl");
        try (StepLogWriter log = StepLogWriter.open(file.toString(), "job", 0, "/data/train")) {
            monitor.stepLog(log);
            monitor.gpuPercent(() -> 97);
            long[] clock = {0};
            Runnable round = () -> {
                for (int step = 0; step < 1000; step++) {
                    clock[0] += 10 * MS;
                    monitor.record(MS, clock[0], 2, 64);
                }
            };
            HeapRounds.untilQuiet(round, 3, 50);
            long allocated = HeapRounds.least(5, HeapRounds.QUIET_BYTES - 1, round);
            assertTrue(allocated < HeapRounds.QUIET_BYTES, "heap bytes over 1000 logged steps: " + allocated);
        }
        assertTrue(Files.readAllLines(file).size() > 3000);
    }
}
