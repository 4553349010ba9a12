package io.pinshard.loader.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.loader.TestDatasets;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.SampleOrder;
import io.pinshard.memory.HeapCounter;
import java.util.BitSet;
import org.junit.jupiter.api.Test;

/**
 * The epoch plan on its own, at sizes the loader tests do not reach: every order is a permutation of the records
 * (checked over all positions), ranks split it into disjoint blocks, quasi-random stays inside shard-local
 * windows, and a plan holds no per-record memory.
 */
class EpochPlanTest {
    private static final int RECORDS = 1_000_003;

    /** Shards of 997 .. 1,996 records, so windows are cut by shard ends. */
    private static long[] shards(long records) {
        int count = 0;
        long[] starts = new long[(int) (records / 997) + 2];
        for (long r = 0; r < records; r += 997 + (count * 7919L) % 1000) {
            starts[count++] = r;
        }
        starts[count++] = records;
        return java.util.Arrays.copyOf(starts, count);
    }

    private static LoaderOptions.Builder options(SampleOrder order) {
        return TestDatasets.small().batchSize(256).order(order).quasiRandomWindow(100);
    }

    @Test
    void everyOrderVisitsEveryRecordOnceAndEpochsDiffer() {
        long[] shards = shards(RECORDS);
        for (SampleOrder order : SampleOrder.values()) {
            EpochPlan plan = new EpochPlan(RECORDS, shards, options(order).build().sampling());
            plan.prepare(0, 4);
            plan.prepare(1, 5);
            BitSet seen = new BitSet(RECORDS);
            int differ = 0;
            for (int p = 0; p < RECORDS; p++) {
                int record = plan.recordAt(0, p);
                assertFalse(seen.get(record), order + ": record " + record + " twice, at " + p);
                seen.set(record);
                differ += record != plan.recordAt(1, p) ? 1 : 0;
            }
            assertEquals(RECORDS, seen.cardinality(), order + " covers the records");
            assertEquals(-1, plan.recordAt(0, RECORDS), "past the epoch");
            if (order == SampleOrder.SEQUENTIAL) {
                assertEquals(0, differ);
                assertEquals(12345, plan.recordAt(0, 12345));
            } else {
                assertTrue(differ > RECORDS * 0.9, order + ": epochs 4 and 5 agree at " + (RECORDS - differ));
            }
        }
    }

    @Test
    void quasiRandomReadsWholeShardLocalWindowsInTurn() {
        long[] shards = shards(RECORDS);
        EpochPlan plan = new EpochPlan(RECORDS, shards, options(SampleOrder.QUASI_RANDOM).quasiRandomInterleave(1)
            .build().sampling());
        plan.prepare(0, 2);
        // Windows: 100 records from each shard start, the last of a shard shorter. Consecutive positions stay in one
        // window until it is used up, so the window changes once per window, and every record of it comes first.
        int changes = 0;
        long windowOfPrevious = -1;
        int inWindow = 0;
        int expected = 0;
        for (int p = 0; p < RECORDS; p++) {
            int record = plan.recordAt(0, p);
            long window = windowOf(shards, record);
            if (window != windowOfPrevious) {
                assertEquals(expected, inWindow, "the previous window was read whole before " + p);
                changes++;
                windowOfPrevious = window;
                inWindow = 0;
                expected = windowSize(shards, record);
            }
            inWindow++;
        }
        assertEquals(plan.windows(), changes);
        assertNotEquals(0, plan.recordAt(0, 0), "the window order is shuffled");
    }

    @Test
    void interleavedWindowsAreReadTogetherGroupByGroup() {
        long[] shards = shards(RECORDS);
        for (int interleave : new int[] {4, 7}) {
            EpochPlan plan = new EpochPlan(RECORDS, shards, options(SampleOrder.QUASI_RANDOM)
                .quasiRandomInterleave(interleave).build().sampling());
            plan.prepare(1, 3);
            assertEquals(interleave, plan.interleave());
            // A group is `interleave` whole windows: a window new to the group may only come once the group's
            // windows are all read whole. Within it the records of its windows are shuffled together.
            java.util.Map<Long, Integer> group = new java.util.HashMap<>();
            BitSet seen = new BitSet(RECORDS);
            int windows = 0;
            long neighboursApart = 0;
            long previous = -1;
            for (int p = 0; p < RECORDS; p++) {
                int record = plan.recordAt(1, p);
                assertFalse(seen.get(record), "record " + record + " twice, at " + p);
                seen.set(record);
                long window = windowOf(shards, record);
                if (!group.containsKey(window)) {
                    if (group.size() == interleave) {
                        assertGroupWhole(group, shards, p);
                        group.clear();
                    }
                    windows++;
                }
                group.merge(window, 1, Integer::sum);
                neighboursApart += p > 0 && window != previous ? 1 : 0;
                previous = window;
            }
            assertGroupWhole(group, shards, RECORDS);
            assertEquals(plan.windows(), windows, "interleave " + interleave);
            assertEquals(RECORDS, seen.cardinality());
            // Neighbours from different windows: (k - 1) / k of them for k equal windows shuffled together.
            double apart = (double) neighboursApart / (RECORDS - 1);
            double expected = (interleave - 1.0) / interleave;
            assertTrue(Math.abs(apart - expected) < 0.05, "interleave " + interleave + ": " + apart + " apart");
        }
    }

    /** Every window of {@code group} (window key to records seen) was read whole before position {@code p}. */
    private static void assertGroupWhole(java.util.Map<Long, Integer> group, long[] shards, int p) {
        group.forEach((window, count) -> {
            int record = (int) (window / 1000 + window % 1000 * 100);
            assertEquals(windowSize(shards, record), count, "window " + window + " whole before position " + p);
        });
    }

    @Test
    void ranksSplitPositionsArithmeticallyIntoDisjointCoveringBlocks() {
        long[] shards = shards(RECORDS);
        for (SampleOrder order : SampleOrder.values()) {
            for (boolean dropLast : new boolean[] {false, true}) {
                int world = 7;
                BitSet seen = new BitSet(RECORDS);
                long repeats = 0;
                long total = 0;
                for (int rank = 0; rank < world; rank++) {
                    EpochPlan plan = new EpochPlan(RECORDS, shards,
                        options(order).dropLast(dropLast).distributed(rank, world).build().sampling());
                    plan.prepare(0, 1);
                    for (long p = 0; p < plan.samplesPerRank(); p++) {
                        int record = plan.recordAt(0, p);
                        repeats += seen.get(record) ? 1 : 0;
                        seen.set(record);
                        total++;
                    }
                }
                long perRank = dropLast ? RECORDS / world / 256 * 256 : (RECORDS + world - 1) / world;
                assertEquals(perRank * world, total, order + " dropLast " + dropLast);
                assertEquals(dropLast ? 0 : perRank * world - RECORDS, repeats, "only the wrap-around repeats");
                assertEquals(dropLast ? total : RECORDS, seen.cardinality());
            }
        }
    }

    @Test
    void aPlanOfAHundredMillionRecordsHoldsNoPerRecordMemory() {
        long records = 100_000_000L;
        long[] shards = new long[10_001];
        for (int s = 0; s <= 10_000; s++) {
            shards[s] = records * s / 10_000;
        }
        long random = allocatedBy(records, shards, SampleOrder.RANDOM);
        long sequential = allocatedBy(records, shards, SampleOrder.SEQUENTIAL);
        long quasi = allocatedBy(records, shards, SampleOrder.QUASI_RANDOM);
        assumeTrue(random >= 0, "no thread allocation counter in this JVM");
        assertTrue(random < 4096, "random plan: " + random + " bytes");
        assertTrue(sequential < 4096, "sequential plan: " + sequential + " bytes");
        // Window 1,024 of 10,000 records per shard: 10 windows per shard, 100,000 windows, 20 bytes each (the
        // windows' starts, and per buffer the order and its starts): 2 MB, against 800 MB for two int[] orders.
        assertTrue(quasi < 100_000 * 20 + 4096, "quasi-random plan: " + quasi + " bytes");
        assertTrue(quasi > 100_000 * 20, "quasi-random plan: " + quasi + " bytes");
    }

    private static long allocatedBy(long records, long[] shards, SampleOrder order) {
        LoaderOptions options = TestDatasets.small().batchSize(256).order(order).quasiRandomWindow(1024)
            .distributed(3, 8).build();
        long before = HeapCounter.currentThreadAllocatedBytes();
        EpochPlan plan = new EpochPlan(records, shards, options.sampling());
        plan.prepare(0, 0);
        plan.prepare(1, 1);
        long after = HeapCounter.currentThreadAllocatedBytes();
        assertTrue(plan.recordAt(1, plan.samplesPerRank() - 1) >= 0);
        return before < 0 ? -1 : after - before;
    }

    private static long windowOf(long[] shards, int record) {
        int s = shardOf(shards, record);
        return shards[s] * 1000 + (record - shards[s]) / 100;
    }

    private static int windowSize(long[] shards, int record) {
        int s = shardOf(shards, record);
        long first = shards[s] + (record - shards[s]) / 100 * 100;
        return (int) (Math.min(first + 100, shards[s + 1]) - first);
    }

    private static int shardOf(long[] shards, int record) {
        int s = java.util.Arrays.binarySearch(shards, record);
        return s >= 0 ? s : -s - 2;
    }
}
