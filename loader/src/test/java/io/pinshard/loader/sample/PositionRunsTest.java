package io.pinshard.loader.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Runs of positions against a plain list of the same positions, on random runs. */
class PositionRunsTest {
    @Test
    void addMergesAdjacentRunsAndLooksPositionsUp() {
        PositionRuns runs = new PositionRuns();
        runs.add(3, 2);
        runs.add(5, 1); // adjacent: merged
        runs.add(9, 0); // empty: ignored
        runs.add(10, 3);
        assertEquals(2, runs.runs());
        assertEquals(6, runs.size());
        int[] expected = {3, 4, 5, 10, 11, 12};
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], runs.positionAt(i));
        }
    }

    @Test
    void copyRangeAndIntersectionMatchTheListsTheyStandFor() {
        SplittableRandom random = new SplittableRandom(27);
        for (int round = 0; round < 300; round++) {
            List<Integer> a = new ArrayList<>();
            List<Integer> b = new ArrayList<>();
            PositionRuns ra = randomRuns(random, a);
            PositionRuns rb = randomRuns(random, b);
            assertEquals(a.size(), ra.size());
            for (int i = 0; i < a.size(); i++) {
                assertEquals(a.get(i), ra.positionAt(i));
            }
            int from = a.isEmpty() ? 0 : random.nextInt(a.size());
            int to = from + (a.size() == from ? 0 : random.nextInt(a.size() - from + 1));
            PositionRuns copied = new PositionRuns();
            ra.copyRange(from, to, copied);
            assertEquals(to - from, copied.size());
            for (int i = from; i < to; i++) {
                assertEquals(a.get(i), copied.positionAt(i - from));
            }
            BitSet inB = new BitSet();
            b.forEach(inB::set);
            List<Integer> both = a.stream().filter(inB::get).toList();
            PositionRuns common = PositionRuns.intersection(ra, rb);
            assertEquals(both.size(), common.size(), "round " + round);
            for (int i = 0; i < both.size(); i++) {
                assertEquals(both.get(i), common.positionAt(i));
            }
        }
    }

    private static PositionRuns randomRuns(SplittableRandom random, List<Integer> list) {
        PositionRuns runs = new PositionRuns();
        int at = random.nextInt(5);
        for (int r = random.nextInt(12); r > 0; r--) {
            int length = random.nextInt(6);
            runs.add(at, length);
            for (int p = at; p < at + length; p++) {
                list.add(p);
            }
            at += length + random.nextInt(4);
        }
        return runs;
    }
}
