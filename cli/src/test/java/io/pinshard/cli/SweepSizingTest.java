package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.cli.SweepSizing.Point;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sweep's answer arithmetic: measured where a point reaches the need, else scaled from the all-cores point. */
class SweepSizingTest {
    private static final List<Point> TWO_CORES = List.of(new Point(1, 1000), new Point(2, 1800), new Point(3, 1850),
        new Point(4, 1820));

    @Test
    void theSmallestMeasuredWorkerCountThatReachesTheNeedIsTheAnswer() {
        SweepSizing.Answer answer = SweepSizing.size(TWO_CORES, 900, 2, 2); // 1,800 images/s: 2 workers exactly
        assertTrue(answer.measured());
        assertEquals(1800, answer.needImagesPerSecond(), 0);
        assertEquals(2, answer.workers());
        assertEquals(4, answer.cores()); // 2 workers + one core per GPU
        assertEquals(1, SweepSizing.size(TWO_CORES, 1000, 1, 2).workers());
        // Order does not matter; the slowest that reaches wins even when a later point is faster.
        assertEquals(3, SweepSizing.size(List.of(new Point(4, 1900), new Point(3, 1850), new Point(1, 10)),
            1840, 1, 2).workers());
    }

    @Test
    void beyondTheMachineItScalesTheRatePerWorkerMeasuredWithEveryCoreBusy() {
        // 8 x 3,500 = 28,000 images/s; at 2 workers (the cores) 900 images/s per worker -> ceil(31.1) = 32.
        SweepSizing.Answer answer = SweepSizing.size(TWO_CORES, 3500, 8, 2);
        assertFalse(answer.measured());
        assertEquals(2, answer.basisWorkers()); // not the 3- and 4-worker points: those share cores
        assertEquals(900, answer.perWorkerRate(), 1e-9);
        assertEquals(32, answer.workers());
        assertEquals(40, answer.cores());
        // An exact multiple does not round up to one more worker.
        assertEquals(4, SweepSizing.size(List.of(new Point(1, 700)), 1400, 2, 1).workers());
        // Fewer points than cores: the largest measured one is the basis.
        SweepSizing.Answer few = SweepSizing.size(List.of(new Point(1, 500), new Point(2, 990)), 10_000, 1, 16);
        assertEquals(2, few.basisWorkers());
        assertEquals(21, few.workers()); // 10,000 / 495 = 20.2
    }

    @Test
    void theSentenceNamesGpusWorkersCoresAndThisMachine() {
        String line = SweepSizing.sentence(SweepSizing.size(TWO_CORES, 3500, 8, 2), "jpeg (bench/jpeg)", 3500, 8, 2);
        assertEquals("8 GPUs at 3,500 images/s each need 32 workers (40 cores) with these shards (jpeg (bench/jpeg);"
            + " extrapolated from 900 images/s per worker measured at 2 workers); this machine has 2", line);
        String measured = SweepSizing.sentence(SweepSizing.size(TWO_CORES, 1000, 1, 2), "raw", 1000, 1, 2);
        assertEquals("1 GPU at 1,000 images/s each need 1 workers (2 cores) with these shards (raw; measured: 1,000"
            + " images/s at 1 workers); this machine has 2", measured);
    }

    @Test
    void refusesWhatItCannotAnswer() {
        assertThrows(IllegalArgumentException.class, () -> SweepSizing.size(List.of(), 100, 1, 2));
        assertThrows(IllegalArgumentException.class, () -> SweepSizing.size(TWO_CORES, 0, 1, 2));
        assertThrows(IllegalArgumentException.class, () -> SweepSizing.size(TWO_CORES, 100, 0, 2));
        assertThrows(IllegalArgumentException.class, () -> SweepSizing.size(TWO_CORES, Double.NaN, 1, 2));
        // Nothing measured at or below the cores with any throughput: nothing to scale.
        assertThrows(IllegalArgumentException.class,
            () -> SweepSizing.size(List.of(new Point(1, 0), new Point(4, 0)), 1e6, 1, 2));
        assertThrows(IllegalArgumentException.class, () -> SweepSizing.size(List.of(new Point(0, 10)), 1, 1, 2));
    }
}
