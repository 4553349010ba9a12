package io.pinshard.cuda.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.cuda.runtime.CudaAvailability;
import io.pinshard.datawait.DataWaitMonitor;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** NVML utilisation in the data-wait warning where a GPU is, the reason where none is. */
class GpuUtilizationTest {
    private static final long MS = 1_000_000;

    /** Waits 50 % of each 10 ms step for 4 steps: the monitor warns. */
    private static void starve(DataWaitMonitor monitor) {
        for (int step = 0; step <= 4; step++) {
            monitor.record(5 * MS, (step + 1) * 10 * MS);
        }
    }

    @Test
    void withoutAGpuTheWarningSaysWhyThereIsNoUtilisation() {
        Assumptions.assumeFalse(CudaAvailability.isAvailable(), "this machine has a usable GPU");
        String reason = GpuUtilization.unavailableReason();
        assertEquals("no GPU utilisation: " + CudaAvailability.status().describe(), reason);
        assertThrows(IllegalStateException.class, () -> GpuUtilization.open(0));
        DataWaitMonitor monitor = new DataWaitMonitor("device batches", "hint", 0.10, 4, 0);
        assertNull(GpuUtilization.attach(monitor, 0));
        starve(monitor);
        assertTrue(monitor.warning().contains("threshold 10%); " + reason + ". hint The GPU idles"), monitor.warning());
    }

    @Test
    void onAGpuTheWarningCarriesNvmlsFigure() {
        Assumptions.assumeTrue(CudaAvailability.isAvailable(), "no usable GPU: " + CudaAvailability.status().describe());
        assertNull(GpuUtilization.unavailableReason());
        DataWaitMonitor monitor = new DataWaitMonitor("device batches", "hint", 0.10, 4, 0);
        try (GpuUtilization sampler = GpuUtilization.attach(monitor, 0)) {
            assertNotNull(sampler);
            int percent = sampler.gpuPercent();
            assertTrue(percent >= 0 && percent <= 100, "utilisation " + percent);
            starve(monitor);
            assertTrue(Pattern.compile("; GPU 0 utilisation [0-9]+ %, memory controller [0-9]+ % \\(NVML\\)\\. hint"
                + " The GPU idles")
                .matcher(monitor.warning()).find(), monitor.warning());
        }
        assertThrows(IllegalStateException.class, () -> GpuUtilization.open(1 << 20));
    }

    @Test
    void theStepLogsGpuUtilComesFromTheRegisteredContextWithoutAnyWiring() throws Exception {
        // A plain monitor on cuda-bridge's class path (the loader's own is one): its step log's gpu_util is NVML's
        // busy percent on a GPU, null (never a made-up figure) without one.
        java.nio.file.Path log = java.nio.file.Files.createTempFile("steps", ".jsonl");
        try {
            DataWaitMonitor monitor = new DataWaitMonitor("host batches", "hint", 0.10, 50, 0);
            try (io.pinshard.datawait.StepLogWriter writer =
                     io.pinshard.datawait.StepLogWriter.open(log.toString(), "job", 0, "/data/train")) {
                monitor.stepLog(writer);
                monitor.record(MS, MS, 0, 8);
                monitor.record(MS, 2 * MS, 0, 8);
            }
            String line = java.nio.file.Files.readString(log);
            int percent = new GpuUtilizationContext().gpuPercent();
            if (CudaAvailability.isAvailable()) {
                assertTrue(percent >= 0 && percent <= 100, "utilisation " + percent);
                assertTrue(Pattern.compile("\"gpu_util\": [0-9]+,").matcher(line).find(), line);
            } else {
                assertEquals(-1, percent);
                assertTrue(line.contains("\"gpu_util\": null,"), line);
            }
        } finally {
            java.nio.file.Files.deleteIfExists(log);
        }
    }
}
