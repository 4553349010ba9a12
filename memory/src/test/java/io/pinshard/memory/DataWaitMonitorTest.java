package io.pinshard.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
}
