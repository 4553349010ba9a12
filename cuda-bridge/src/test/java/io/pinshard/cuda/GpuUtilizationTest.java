package io.pinshard.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        assertTrue(monitor.warning().contains("threshold 10%); " + reason + ". hint"), monitor.warning());
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
            assertTrue(Pattern.compile("; GPU 0 utilisation [0-9]+ %, memory controller [0-9]+ % \\(NVML\\)\\. hint$")
                .matcher(monitor.warning()).find(), monitor.warning());
        }
        assertThrows(IllegalStateException.class, () -> GpuUtilization.open(1 << 20));
    }
}
