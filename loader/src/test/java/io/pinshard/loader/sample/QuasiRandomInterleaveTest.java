package io.pinshard.loader.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.pinshard.loader.TestDatasets;
import io.pinshard.loader.options.SampleOrder;
import io.pinshard.loader.options.SamplingOptions;
import org.junit.jupiter.api.Test;

/** The automatic interleave: as many windows as fit the working set, up to 16, at least one. */
class QuasiRandomInterleaveTest {
    private static final int WINDOW = 1024;

    @Test
    void smallRecordsGetTheMost() {
        // 100 M records of 200 bytes: a group of 16 windows spans 3.3 MB.
        assertEquals(16, QuasiRandomInterleave.choose(100_000_000L, 20_000_000_000L, WINDOW));
    }

    @Test
    void largeRecordsGetAsManyWindowsAsFitTheWorkingSet() {
        long records = 1_000_000;
        // 45 KB jpeg records: 512 MiB / (1024 x 45 KB) = 11.6 windows.
        assertEquals(11, QuasiRandomInterleave.choose(records, records * 45_000, WINDOW));
        // 300 KB raw records: one window of 1,024 already spans 300 MB.
        assertEquals(1, QuasiRandomInterleave.choose(records, records * 300_000, WINDOW));
        // A dataset smaller than one window counts its records, not the window's.
        assertEquals(16, QuasiRandomInterleave.choose(100, 100 * 300_000, WINDOW));
        assertEquals(1, QuasiRandomInterleave.choose(0, 0, WINDOW));
    }

    @Test
    void resolveReplacesOnlyAuto() {
        SamplingOptions asked = TestDatasets.small().order(SampleOrder.QUASI_RANDOM).quasiRandomInterleave(3).build()
            .sampling();
        assertSame(asked, QuasiRandomInterleave.resolve(asked, 1_000, 1_000_000));
        SamplingOptions auto = TestDatasets.small().order(SampleOrder.QUASI_RANDOM).build().sampling();
        assertEquals(SamplingOptions.AUTO_INTERLEAVE, auto.quasiRandomInterleave());
        assertEquals(16, QuasiRandomInterleave.resolve(auto, 1_000, 1_000_000).quasiRandomInterleave());
        assertEquals(16, QuasiRandomInterleave.of(auto), "a plan without a dataset behind it");
    }
}
