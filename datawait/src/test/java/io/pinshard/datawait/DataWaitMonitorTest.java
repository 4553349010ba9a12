package io.pinshard.datawait;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DataWaitMonitorTest {
    private static final long MS = 1_000_000;

    @Test
    void warnsOnceWhenWaitExceedsTheFractionOfStepTime() {
        DataWaitMonitor monitor = new DataWaitMonitor("test batches", "hint", 0.10, 10, 0);
        long now = 0;
        for (int step = 0; step < 21; step++) { // 5 % waiting: 1 ms of a 20 ms step
            now += 20 * MS;
            monitor.record(1 * MS, now);
        }
        assertFalse(monitor.warned());
        assertEquals(5.0, monitor.dataWaitPercent(), 1e-9);
        for (int step = 0; step < 10; step++) { // 25 % waiting
            now += 20 * MS;
            monitor.record(5 * MS, now);
        }
        assertTrue(monitor.warned());
        assertEquals(30, monitor.steps());
        assertEquals((20 * 1 + 10 * 5) * 100.0 / (30 * 20), monitor.dataWaitPercent(), 1e-9);
    }

    @Test
    void warmupStepsAreLeftOut() {
        DataWaitMonitor monitor = new DataWaitMonitor("test batches", "hint", 0.10, 5, 3);
        long now = 0;
        for (int step = 0; step < 4; step++) {
            now += 100 * MS;
            monitor.record(99 * MS, now);
        }
        assertEquals(0.0, monitor.dataWaitPercent());
        assertFalse(monitor.warned());
    }

    @Test
    void theWarningCarriesTheContextAskedWhenItFires() {
        DataWaitMonitor monitor = new DataWaitMonitor("test batches", "Try more workers.", 0.10, 4, 0);
        int[] asked = {0};
        monitor.warningContext(() -> "GPU 0 utilisation " + (30 + asked[0]++) + " %");
        long now = 0;
        for (int step = 0; step < 4; step++) { // 4 waits, 3 steps: no full window yet
            now += 10 * MS;
            monitor.record(5 * MS, now);
        }
        assertEquals(0, asked[0]);
        assertNull(monitor.warning());
        now += 10 * MS;
        monitor.record(5 * MS, now);
        assertEquals(1, asked[0]);
        assertEquals("pinshard data-wait: training waited 50.0% of step time for test batches over the last 4 steps"
            + " (mean wait 5.00 ms per step of 10.00 ms; threshold 10%); GPU 0 utilisation 30 %. Try more workers. The"
            + " GPU idles: find the workers that keep it fed with: pinshard bench DATASET --sweep --gpu-rate"
            + " IMAGES_PER_S", monitor.warning());

        DataWaitMonitor failing = new DataWaitMonitor("b", "h", 0.10, 1, 0);
        failing.warningContext(() -> {
            throw new IllegalStateException("NVML gone");
        });
        failing.record(1 * MS, 1 * MS);
        failing.record(1 * MS, 2 * MS);
        assertTrue(failing.warning().contains("threshold 10%); (NVML gone). h The GPU idles"), failing.warning());
    }

    @Test
    void theWarningNamesThePythonGuardsNextActionWithTheDatasetAndTheRateFed() {
        // The words of python/pinshard/_steplog.py's warning: "pinshard data-wait: ... pinshard bench DATASET --sweep
        // --gpu-rate N", N the images per second of step time without the wait (what the GPU trains at when fed).
        DataWaitMonitor monitor = new DataWaitMonitor("host batches from /data/train", "", 0.10, 4, 0);
        monitor.warningContext(null);
        monitor.dataset("/data/train");
        long now = 0;
        for (int step = 0; step <= 4; step++) { // 64 images a step, 6 ms compute + 4 ms wait: 10,667 images/s fed
            now += 10 * MS;
            monitor.record(4 * MS, now, 0, 64);
        }
        assertEquals("pinshard data-wait: training waited 40.0% of step time for host batches from /data/train over"
            + " the last 4 steps (mean wait 4.00 ms per step of 10.00 ms; threshold 10%). The GPU idles: find the"
            + " workers that keep it fed with: pinshard bench /data/train --sweep --gpu-rate 10667", monitor.warning());
    }
}
