package io.pinshard.loader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.LoaderState;
import io.pinshard.loader.options.SampleOrder;
import io.pinshard.loader.sample.QuasiRandomInterleave;
import io.pinshard.reader.Dataset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoaderSamplingTest {
    private static final int RECORDS = 61;
    @TempDir
    static Path temp;
    static Dataset dataset;

    @BeforeAll
    static void writeDataset() throws Exception {
        // Small shards so quasi-random windows and shard boundaries matter.
        dataset = Dataset.open(TestDatasets.write(temp.resolve("raw"), RECORDS, Codec.RAW, 3, 16 << 10));
        assertTrue(dataset.shardCount() > 3, "test needs several shards");
    }

    @AfterAll
    static void close() {
        dataset.close();
    }

    private static EpochContents run(LoaderOptions options, int epoch) {
        return EpochContents.fresh(dataset, options, epoch);
    }

    @Test
    void sameBatchesWhateverTheWorkerCountAndPrefetch() {
        for (SampleOrder order : SampleOrder.values()) {
            LoaderOptions.Builder base = TestDatasets.small().order(order).quasiRandomWindow(5);
            EpochContents one = run(base.workers(1).prefetch(1).build(), 3);
            EpochContents three = run(base.workers(3).prefetch(7).build(), 3);
            EpochContents two = run(base.workers(2).prefetch(2).build(), 3);
            one.assertSameAs(three);
            one.assertSameAs(two);
            assertEquals(8, one.ids().size(), "ceil(61 / 8) batches");
            assertEquals(5, one.ids().get(7).length, "partial last batch");
        }
    }

    @Test
    void epochsAndSeedsDiffer() {
        LoaderOptions options = TestDatasets.small().build();
        List<Long> epoch0 = run(options, 0).allIds();
        List<Long> epoch1 = run(options, 1).allIds();
        List<Long> otherSeed = run(TestDatasets.small().seed(8).build(), 0).allIds();
        assertNotEquals(epoch0, epoch1);
        assertNotEquals(epoch0, otherSeed);
        assertEquals(allRecords(), new HashSet<>(epoch0));
        assertEquals(RECORDS, epoch0.size());
    }

    @Test
    void sequentialVisitsRecordsInOrder() {
        List<Long> ids = run(TestDatasets.small().order(SampleOrder.SEQUENTIAL).build(), 5).allIds();
        assertEquals(LongStream.range(0, RECORDS).boxed().collect(Collectors.toList()), ids);
    }

    @Test
    void quasiRandomVisitsEveryRecordExactlyOnceWithShardLocalWindows() {
        for (int epoch = 0; epoch < 3; epoch++) {
            List<Long> ids = run(TestDatasets.small().order(SampleOrder.QUASI_RANDOM).quasiRandomWindow(6)
                .quasiRandomInterleave(1).build(), epoch).allIds();
            assertEquals(RECORDS, ids.size());
            assertEquals(allRecords(), new HashSet<>(ids));
            assertNotEquals(LongStream.range(0, RECORDS).boxed().collect(Collectors.toList()), ids);
            // Consecutive positions in blocks of one window stay within one shard's window.
            int shardChanges = 0;
            for (int i = 1; i < ids.size(); i++) {
                if (dataset.shardOf(ids.get(i)) != dataset.shardOf(ids.get(i - 1))) {
                    shardChanges++;
                }
            }
            assertTrue(shardChanges < RECORDS / 3, "windows keep reads shard-local: " + shardChanges + " switches");
        }
    }

    @Test
    void interleavedQuasiRandomWindowsMixShardsBetweenNeighbours() {
        // Four windows of 6 shuffled together: about three of four neighbours come from another window, most of
        // them from another shard, where one window at a time changes shard only between windows.
        List<Long> ids = run(TestDatasets.small().order(SampleOrder.QUASI_RANDOM).quasiRandomWindow(6)
            .quasiRandomInterleave(4).build(), 1).allIds();
        assertEquals(allRecords(), new HashSet<>(ids));
        assertEquals(RECORDS, ids.size());
        int shardChanges = 0;
        for (int i = 1; i < ids.size(); i++) {
            shardChanges += dataset.shardOf(ids.get(i)) != dataset.shardOf(ids.get(i - 1)) ? 1 : 0;
        }
        assertTrue(shardChanges > RECORDS / 2, "interleaved windows mix shards: " + shardChanges + " switches");
        try (Loader loader = Loader.open(dataset, TestDatasets.small().order(SampleOrder.QUASI_RANDOM).build())) {
            assertEquals(QuasiRandomInterleave.MOST, loader.options().sampling().quasiRandomInterleave(),
                "small records: the automatic interleave is the most");
        }
    }

    @Test
    void ranksGetDisjointSlicesWithEqualBatchCounts() {
        for (SampleOrder order : SampleOrder.values()) {
            for (boolean dropLast : new boolean[] {false, true}) {
                int world = 3;
                List<List<Long>> perRank = new ArrayList<>();
                List<Integer> batchCounts = new ArrayList<>();
                for (int rank = 0; rank < world; rank++) {
                    EpochContents contents = run(TestDatasets.small().order(order).quasiRandomWindow(5)
                        .distributed(rank, world).dropLast(dropLast).batchSize(4).build(), 2);
                    perRank.add(contents.allIds());
                    batchCounts.add(contents.ids().size());
                }
                assertEquals(1, new HashSet<>(batchCounts).size(), "equal batch counts " + batchCounts);
                Set<Long> union = new HashSet<>();
                int total = 0;
                for (List<Long> ids : perRank) {
                    union.addAll(ids);
                    total += ids.size();
                    assertEquals(perRank.get(0).size(), ids.size(), "equal sample counts");
                }
                if (dropLast) {
                    assertEquals(total, union.size(), "disjoint");
                    assertEquals(RECORDS / world / 4 * 4 * world, total);
                } else {
                    assertEquals(allRecords(), union, "every record on some rank");
                    assertEquals(21 * world, total, "ceil(61/3) per rank, one record padded");
                }
            }
        }
    }

    @Test
    void resumeContinuesWithExactlyTheBatchesLeft() {
        LoaderOptions options = TestDatasets.small().distributed(1, 2).build();
        EpochContents whole = run(options, 4);
        LoaderState state;
        EpochContents head;
        try (Loader loader = Loader.open(dataset, options); Epoch batches = loader.epoch(4)) {
            head = EpochContents.of(batches, 2);
            state = batches.state();
        }
        assertEquals(new LoaderState(4, 2, 7, 2, 1), state);
        EpochContents tail;
        try (Loader loader = Loader.open(dataset, options.toBuilder().workers(3).build());
             Epoch batches = loader.resume(state)) {
            assertEquals(2, batches.batchesConsumed());
            tail = EpochContents.of(batches);
        }
        whole.assertSameAs(head.then(tail));
        try (Loader loader = Loader.open(dataset, options.toBuilder().seed(99).build())) {
            assertThrows(IllegalArgumentException.class, () -> loader.resume(state));
        }
    }

    private static Set<Long> allRecords() {
        return LongStream.range(0, RECORDS).boxed().collect(Collectors.toSet());
    }
}
