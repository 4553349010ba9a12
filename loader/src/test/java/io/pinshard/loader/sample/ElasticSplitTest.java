package io.pinshard.loader.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.memory.HeapRounds;
import io.pinshard.loader.TestDatasets;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.LoaderState;
import io.pinshard.loader.options.SampleOrder;
import io.pinshard.loader.work.LoaderRun;
import io.pinshard.memory.HeapCounter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Elastic resume on the plan alone (no threads, no dataset): what the new ranks deliver is exactly the
 * epoch's unconsumed samples, in contiguous blocks of the remaining order, in equal batch counts, and the
 * next epoch is a fresh one. The expected sets come from the plain plans of the old world, not from
 * {@link ElasticSplit}.
 */
class ElasticSplitTest {
    private static final int EPOCH = 3;

    /** One resume scenario: dataset of {@code records} in shards starting at {@code shards}. */
    private record Scenario(int records, int batchSize, SampleOrder order, boolean dropLast, int window) {
        long[] shards() {
            List<Long> starts = new ArrayList<>();
            for (long r = 0, size = 5; r < records; r += size, size = size % 17 + 6) {
                starts.add(r);
            }
            starts.add((long) records);
            return starts.stream().mapToLong(Long::longValue).toArray();
        }

        LoaderOptions options(int rank, int world) {
            return TestDatasets.small().batchSize(batchSize).order(order).dropLast(dropLast).quasiRandomWindow(window)
                .distributed(rank, world).build();
        }

        EpochPlan plan(int rank, int world) {
            return new EpochPlan(records, shards(), options(rank, world).sampling());
        }

        /**
         * Batch contents of run segment {@code segment} from batch {@code from} to its end, checking the holes:
         * as the loader's workers see it, records from the plan's buffer {@code segment & 1}, shapes from the run.
         */
        static List<int[]> deliver(EpochPlan plan, LoaderRun run, int segment, long from) {
            List<int[]> batches = new ArrayList<>();
            int b = plan.batchSize();
            for (long batch = from; batch < run.batches(segment); batch++) {
                int size = run.samplesIn(segment, batch);
                assertTrue(size >= 0 && size <= b, "batch size " + size);
                int[] records = new int[size];
                for (int i = 0; i < b; i++) {
                    int record = plan.recordAt(segment & 1, batch * b + i);
                    if (i < size) {
                        assertTrue(record >= 0, "a record at every place of the batch");
                        records[i] = record;
                    } else {
                        assertEquals(-1, record, "no record past the end of a short batch");
                    }
                }
                batches.add(records);
            }
            return batches;
        }

        /** A run starting at the first batch of plain {@code epoch}, its order in buffer 0 of {@code plan}. */
        static LoaderRun plain(EpochPlan plan, int epoch) {
            plan.prepare(0, epoch);
            LoaderRun run = new LoaderRun(plan);
            run.reset(epoch, 0, null);
            return run;
        }

        /** A run starting where {@code split} resumes epoch {@link #EPOCH}, bound to buffer 0 of {@code plan}. */
        static LoaderRun resumed(EpochPlan plan, ElasticSplit split) {
            plan.prepare(0, EPOCH, split);
            LoaderRun run = new LoaderRun(plan);
            run.reset(EPOCH, split.startBatch(), split);
            return run;
        }

        /** Epoch-order position of every record in epoch {@code epoch}. */
        int[] positionsOf(int epoch) {
            EpochPlan whole = new EpochPlan(records, shards(),
                options(0, 1).toBuilder().dropLast(false).build().sampling());
            whole.prepare(0, epoch);
            int[] position = new int[records];
            for (int p = 0; p < records; p++) {
                position[whole.recordAt(0, p)] = p;
            }
            return position;
        }
    }

    /** Records each old rank delivered in its first {@code consumed} batches, and every record the epoch visits. */
    private static void oldWorld(Scenario s, int world, long consumed, Set<Integer> visited, Set<Integer> taken) {
        for (int r = 0; r < world; r++) {
            EpochPlan plan = s.plan(r, world);
            List<int[]> all = Scenario.deliver(plan, Scenario.plain(plan, EPOCH), 0, 0);
            for (int b = 0; b < all.size(); b++) {
                for (int record : all.get(b)) {
                    visited.add(record);
                    if (b < consumed) {
                        taken.add(record);
                    }
                }
            }
        }
    }

    /**
     * Resumes {@code state} on every rank of {@code world}, checks exactly-once, blocks, equal counts and the next
     * epoch, and returns each new rank's batches.
     */
    private static List<List<int[]>> resumeAndCheck(Scenario s, LoaderState state, int world, Set<Integer> expected) {
        int[] position = s.positionsOf(EPOCH);
        List<List<int[]>> perRank = new ArrayList<>();
        List<Integer> delivered = new ArrayList<>();
        Set<Long> batchCounts = new HashSet<>();
        String what = s + " " + state + " on " + world;
        for (int r = 0; r < world; r++) {
            ElasticSplit split = ElasticSplit.resume(state, s.records(), s.options(r, world).sampling());
            EpochPlan plan = s.plan(r, world);
            LoaderRun run = Scenario.resumed(plan, split);
            List<int[]> batches = Scenario.deliver(plan, run, 0, split.startBatch());
            perRank.add(batches);
            batchCounts.add(run.batches(0) - split.startBatch());
            for (int[] batch : batches) {
                for (int record : batch) {
                    delivered.add(position[record]);
                }
            }
            assertEquals(state.batchesConsumed(), split.startBatch(), what + ": batches count on from the state");
            // The next epochs run normally on the new world: the one filled ahead into the other buffer while this
            // buffer still holds the resized epoch, and the one after, which reuses this buffer.
            plan.prepare(1, EPOCH + 1);
            EpochPlan fresh = s.plan(r, world);
            assertEquals(toList(Scenario.deliver(fresh, Scenario.plain(fresh, EPOCH + 1), 0, 0)),
                toList(Scenario.deliver(plan, run, 1, 0)), what + ": next epoch");
            plan.prepare(0, EPOCH + 2);
            assertEquals(toList(Scenario.deliver(fresh, Scenario.plain(fresh, EPOCH + 2), 0, 0)),
                toList(Scenario.deliver(plan, run, 2, 0)), what + ": the epoch after");
        }
        assertEquals(1, batchCounts.size(), what + ": equal batch counts " + batchCounts);
        // Concatenated over the new ranks: the unconsumed positions, each once, ascending (contiguous blocks of the
        // remaining order).
        List<Integer> remainingOrder = new ArrayList<>(new TreeSet<>(expected.stream().map(x -> position[x]).toList()));
        assertEquals(remainingOrder, delivered, what + ": exactly the unconsumed samples, in blocks");
        long k = batchCounts.iterator().next();
        if (expected.size() >= (long) world * k) {
            for (List<int[]> batches : perRank) {
                for (int[] batch : batches) {
                    assertTrue(batch.length > 0, what + ": no empty batch while samples suffice");
                }
            }
        }
        return perRank;
    }

    private static List<List<Integer>> toList(List<int[]> batches) {
        return batches.stream().map(b -> Arrays.stream(b).boxed().toList()).toList();
    }

    private static void checkResize(Scenario s, int from, int to, long consumed) {
        Set<Integer> visited = new HashSet<>();
        Set<Integer> taken = new HashSet<>();
        oldWorld(s, from, consumed, visited, taken);
        Set<Integer> expected = new HashSet<>(visited);
        expected.removeAll(taken);
        LoaderState state = new LoaderState(EPOCH, consumed, 7, from, from - 1);
        resumeAndCheck(s, state, to, expected);
    }

    @Test
    void eightToThreeAndFourToSixMidEpoch() {
        for (SampleOrder order : List.of(SampleOrder.RANDOM, SampleOrder.QUASI_RANDOM, SampleOrder.SEQUENTIAL)) {
            for (boolean dropLast : new boolean[] {false, true}) {
                for (int records : new int[] {61, 200, 257}) {
                    Scenario s = new Scenario(records, 4, order, dropLast, 6);
                    for (int[] resize : new int[][] {{8, 3}, {4, 6}}) {
                        long batches = s.plan(0, resize[0]).batchesPerEpoch();
                        for (long consumed : new long[] {0, 1, batches / 2, batches - 1, batches}) {
                            checkResize(s, resize[0], resize[1], consumed);
                        }
                    }
                }
            }
        }
    }

    @Test
    void randomResizes() {
        SplittableRandom random = new SplittableRandom(11);
        SampleOrder[] orders = SampleOrder.values();
        for (int trial = 0; trial < 400; trial++) {
            int records = 1 + random.nextInt(300);
            Scenario s = new Scenario(records, 1 + random.nextInt(9), orders[random.nextInt(orders.length)],
                random.nextBoolean(), 1 + random.nextInt(20));
            int from = 1 + random.nextInt(10);
            int to = 1 + (from + random.nextInt(9)) % 10; // another world size: the same one is the plain plan
            if (s.dropLast() && (Math.max(from, to) > records || records / Math.max(from, to) < s.batchSize())) {
                continue; // such a world cannot run this epoch at all
            }
            long batches = s.plan(0, from).batchesPerEpoch();
            checkResize(s, from, to, random.nextLong(batches + 1));
        }
    }

    @Test
    void fewerSamplesLeftThanRanksGiveEmptyLastBatchesButEqualCounts() {
        // 10 records on 2 ranks in batches of 4: 5 each, 2 batches; after 1, 2 left (1 per rank); 6 new ranks.
        Scenario s = new Scenario(10, 4, SampleOrder.RANDOM, false, 4);
        Set<Integer> visited = new HashSet<>();
        Set<Integer> taken = new HashSet<>();
        oldWorld(s, 2, 1, visited, taken);
        visited.removeAll(taken);
        assertEquals(2, visited.size());
        List<List<int[]>> perRank = resumeAndCheck(s, new LoaderState(EPOCH, 1, 7, 2, 0), 6, visited);
        assertEquals(List.of(1, 1, 0, 0, 0, 0), perRank.stream().map(b -> b.get(0).length).toList());
    }

    @Test
    void lastStepShortOfRanksMovesOneSampleFromTheSecondLastBatch() {
        // 61 records, batch 4, 1 rank to 3: 61 = 3 x 20 + 1 -> 21, 20, 20 samples in 6 batches. The last step would
        // hold one sample; the shorter ranks give one of their second-last batch so none is empty: 4,4,4,4,4,1 and
        // 4,4,4,4,3,1.
        Scenario s = new Scenario(61, 4, SampleOrder.QUASI_RANDOM, false, 6);
        Set<Integer> all = new HashSet<>();
        oldWorld(s, 1, 0, all, new HashSet<>());
        List<List<int[]>> perRank = resumeAndCheck(s, new LoaderState(EPOCH, 0, 7, 1, 0), 3, all);
        assertEquals(List.of(4, 4, 4, 4, 4, 1), perRank.get(0).stream().map(b -> b.length).toList());
        assertEquals(List.of(4, 4, 4, 4, 3, 1), perRank.get(2).stream().map(b -> b.length).toList());
    }

    @Test
    void resizedTwiceInOneEpoch() {
        for (SampleOrder order : List.of(SampleOrder.RANDOM, SampleOrder.QUASI_RANDOM)) {
            for (boolean dropLast : new boolean[] {false, true}) {
                Scenario s = new Scenario(257, 4, order, dropLast, 6);
                Set<Integer> visited = new HashSet<>();
                Set<Integer> taken = new HashSet<>();
                oldWorld(s, 8, 3, visited, taken);
                Set<Integer> left = new HashSet<>(visited);
                left.removeAll(taken);
                // 8 ranks consumed 3 batches, then 3 ranks: those consume 5 and save; then 5 ranks.
                LoaderState onThree = new LoaderState(EPOCH, 3, 7, 8, 2);
                List<List<int[]>> three = resumeAndCheck(s, onThree, 3, left);
                Set<Integer> takenOnThree = new HashSet<>();
                for (List<int[]> batches : three) {
                    batches.subList(0, 5).forEach(b -> Arrays.stream(b).forEach(takenOnThree::add));
                }
                LoaderState saved = new LoaderState(EPOCH, 3 + 5, 7, 3, 1, List.of(new LoaderState.Segment(8, 3)));
                Set<Integer> rest = new HashSet<>(left);
                rest.removeAll(takenOnThree);
                resumeAndCheck(s, saved, 5, rest);
                // Back on 3 ranks: the 3-rank split continues where it stood.
                for (int r = 0; r < 3; r++) {
                    ElasticSplit split = ElasticSplit.resume(saved, s.records(), s.options(r, 3).sampling());
                    EpochPlan plan = s.plan(r, 3);
                    LoaderRun run = Scenario.resumed(plan, split);
                    assertEquals(toList(three.get(r).subList(5, three.get(r).size())),
                        toList(Scenario.deliver(plan, run, 0, split.startBatch())));
                    assertEquals(List.of(new LoaderState.Segment(8, 3)), run.worldSegments(0));
                }
                // Resized with nothing consumed since: the last split is replaced, not recorded.
                ElasticSplit replaced = ElasticSplit.resume(new LoaderState(EPOCH, 3, 7, 3, 0,
                    List.of(new LoaderState.Segment(8, 3))), s.records(), s.options(0, 5).sampling());
                assertEquals(List.of(new LoaderState.Segment(8, 3)), replaced.segments());
                ElasticSplit appended = ElasticSplit.resume(saved, s.records(), s.options(0, 5).sampling());
                assertEquals(List.of(new LoaderState.Segment(8, 3), new LoaderState.Segment(3, 5)), appended.segments());
            }
        }
    }

    @Test
    void resumedPlanLooksUpWithoutHeapAllocation() {
        Scenario s = new Scenario(5000, 32, SampleOrder.QUASI_RANDOM, false, 64);
        EpochPlan plan = s.plan(1, 3);
        LoaderRun run = Scenario.resumed(plan,
            ElasticSplit.resume(new LoaderState(EPOCH, 7, 7, 8, 0), s.records(), s.options(1, 3).sampling()));
        long[] sink = new long[1];
        Runnable pass = () -> {
            for (long batch = run.batches(0) - 1; batch >= 7; batch--) {
                sink[0] += run.samplesIn(0, batch);
                for (int i = 0; i < plan.batchSize(); i++) {
                    sink[0] += plan.recordAt(0, batch * plan.batchSize() + i);
                }
            }
        };
        HeapRounds.untilQuiet(pass, 3, 200);
        long before = HeapCounter.currentThreadAllocatedBytes();
        for (int round = 0; round < 20; round++) {
            pass.run();
        }
        long allocated = HeapCounter.currentThreadAllocatedBytes() - before;
        assumeTrue(before >= 0, "no thread allocation counter in this JVM");
        assertTrue(allocated < 1024, "20 passes over " + (run.batches(0) - 7) + " resumed batches allocated "
            + allocated + " heap bytes (sink " + sink[0] + ")");
    }

    @Test
    void aStateNamingAHugeWorldCostsTimeInTheDatasetSizeOnly() {
        Scenario s = new Scenario(61, 4, SampleOrder.RANDOM, false, 6);
        int huge = Integer.MAX_VALUE;
        assertTimeoutPreemptively(Duration.ofSeconds(2), () -> {
            assertEquals(61, ElasticSplit.resume(new LoaderState(EPOCH, 0, 7, huge, 0), 61, s.options(0, 3).sampling())
                .remaining());
            assertEquals(0, ElasticSplit.resume(new LoaderState(EPOCH, 1, 7, huge, 0), 61, s.options(0, 3).sampling())
                .remaining());
            LoaderState twice = new LoaderState(EPOCH, 1, 7, 3, 0, List.of(new LoaderState.Segment(7, 1),
                new LoaderState.Segment(huge, 0)));
            assertEquals(61 - 7 * 4, ElasticSplit.resume(twice, 61, s.options(0, 3).sampling()).remaining());
        });
    }

    @Test
    void sameWorldWithoutSegmentsIsThePlainPlan() {
        Scenario s = new Scenario(61, 4, SampleOrder.RANDOM, false, 6);
        assertEquals(null, ElasticSplit.resume(new LoaderState(EPOCH, 2, 7, 3, 1), 61, s.options(2, 3).sampling()));
    }

    @Test
    void refusesStatesThatDoNotFit() {
        Scenario s = new Scenario(61, 4, SampleOrder.RANDOM, false, 6);
        // 61 on 8 ranks: 8 per rank, 2 batches; 3 consumed is past the end.
        IllegalArgumentException past = assertThrows(IllegalArgumentException.class,
            () -> ElasticSplit.resume(new LoaderState(EPOCH, 3, 7, 8, 0), 61, s.options(0, 3).sampling()));
        assertTrue(past.getMessage().contains("started on 8 ranks, which have 2 batches per rank, but it says 3"),
            past.getMessage());
        // After 1 batch on 8 ranks, 29 left: 3 batches of 4 on 3 ranks; 4 consumed there is past the end.
        LoaderState beyond = new LoaderState(EPOCH, 1 + 4, 7, 3, 0, List.of(new LoaderState.Segment(8, 1)));
        IllegalArgumentException current = assertThrows(IllegalArgumentException.class,
            () -> ElasticSplit.resume(beyond, 61, s.options(0, 3).sampling()));
        assertTrue(current.getMessage().contains("past the end of the epoch: 4 batches consumed on 3 ranks, which "
            + "have 3 batches of the epoch's 29 samples left"), current.getMessage());
        IllegalArgumentException segment = assertThrows(IllegalArgumentException.class,
            () -> ElasticSplit.resume(beyond, 61, s.options(0, 2).sampling()));
        assertTrue(segment.getMessage().contains("a segment on 3 ranks had 3 batches of the epoch's 29 samples left, "
            + "but it says 4 were consumed"), segment.getMessage());
        Scenario dropping = new Scenario(61, 4, SampleOrder.RANDOM, true, 6);
        IllegalArgumentException nothing = assertThrows(IllegalArgumentException.class,
            () -> ElasticSplit.resume(new LoaderState(EPOCH, 0, 7, 62, 0), 61, dropping.options(0, 2).sampling()));
        assertTrue(nothing.getMessage().contains("drop_last with 62 ranks leaves nothing of 61 records"),
            nothing.getMessage());
        List<LoaderState.Segment> full = new ArrayList<>();
        for (int i = 0; i < LoaderState.MAX_SEGMENTS; i++) {
            full.add(new LoaderState.Segment(i % 2 == 0 ? 2 : 3, 0));
        }
        LoaderState often = new LoaderState(EPOCH, 1, 7, 2, 0, full);
        IllegalArgumentException tooOften = assertThrows(IllegalArgumentException.class,
            () -> ElasticSplit.resume(often, 61, s.options(0, 3).sampling()));
        assertTrue(tooOften.getMessage().contains("already changed world size 8 times"), tooOften.getMessage());
    }
}
