package io.pinshard.loader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.pinshard.format.Codec;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.LoaderState;
import io.pinshard.loader.options.SampleOrder;
import io.pinshard.reader.Dataset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Elastic resume end to end, through real loaders over a small generated dataset: a job checkpointed mid-epoch
 * on {@code w} ranks resumes on {@code w'}; the sample ids the new ranks' batches carry are exactly the epoch's
 * unconsumed samples, each once, in equal batch counts, cropped as an uninterrupted run crops them, and the
 * next epoch is a fresh loader's.
 */
class ElasticResumeTest {
    private static final int RECORDS = 61;
    private static final int EPOCH = 2;
    private static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    static Path temp;
    static Dataset dataset;
    /** Every record's image and label in an uninterrupted epoch {@link #EPOCH} (augmentation depends on the record only). */
    static Map<Long, byte[]> referenceImages = new HashMap<>();
    static Map<Long, Integer> referenceLabels = new HashMap<>();

    @BeforeAll
    static void writeDataset() throws Exception {
        dataset = Dataset.open(TestDatasets.write(temp.resolve("raw"), RECORDS, Codec.RAW, 3, 16 << 10));
        assertTrue(dataset.shardCount() > 3, "test needs several shards");
        try (Loader loader = Loader.open(dataset, options(SampleOrder.RANDOM, false, 0, 1));
             Epoch epoch = loader.epoch(EPOCH)) {
            EpochContents whole = EpochContents.of(epoch);
            forEachSample(whole, (id, label, image) -> {
                referenceImages.put(id, image);
                referenceLabels.put(id, label);
            });
        }
        assertEquals(RECORDS, referenceImages.size());
    }

    @AfterAll
    static void close() {
        dataset.close();
    }

    private static LoaderOptions options(SampleOrder order, boolean dropLast, int rank, int world) {
        return TestDatasets.small().batchSize(4).order(order).quasiRandomWindow(5).dropLast(dropLast)
            .distributed(rank, world).build();
    }

    private interface SampleVisitor {
        void visit(long id, int label, byte[] image);
    }

    private static void forEachSample(EpochContents contents, SampleVisitor visitor) {
        for (int b = 0; b < contents.ids().size(); b++) {
            long[] ids = contents.ids().get(b);
            int imageBytes = ids.length == 0 ? 0 : contents.pixels().get(b).length / ids.length;
            for (int i = 0; i < ids.length; i++) {
                visitor.visit(ids[i], contents.labels().get(b)[i],
                    Arrays.copyOfRange(contents.pixels().get(b), i * imageBytes, (i + 1) * imageBytes));
            }
        }
    }

    @Test
    void eightToThreeRandom() throws Exception {
        resize(SampleOrder.RANDOM, false, 8, 3, 1);
    }

    @Test
    void fourToSixQuasiRandomDropLast() throws Exception {
        resize(SampleOrder.QUASI_RANDOM, true, 4, 6, 2);
    }

    @Test
    void eightToThreeQuasiRandomAtTheLastBatch() throws Exception {
        resize(SampleOrder.QUASI_RANDOM, false, 8, 3, 2); // 61 on 8: 2 batches; nothing left, an empty epoch
    }

    @Test
    void twoToSixWithFewerSamplesLeftThanRanks() throws Exception {
        // 61 on 2: 31 each, 8 batches; after 7, 5 distinct records left (one padded copy was consumed on rank 0):
        // one each for five new ranks, an empty last batch for the sixth.
        resize(SampleOrder.RANDOM, false, 2, 6, 7);
    }

    /** Checkpoints after {@code consumed} batches on {@code from} ranks and resumes on {@code to}. */
    private static void resize(SampleOrder order, boolean dropLast, int from, int to, long consumed) throws Exception {
        Set<Long> visited = new HashSet<>();
        Set<Long> taken = new HashSet<>();
        List<String> checkpoints = new ArrayList<>();
        for (int r = 0; r < from; r++) {
            try (Loader loader = Loader.open(dataset, options(order, dropLast, r, from));
                 Epoch epoch = loader.epoch(EPOCH)) {
                EpochContents head = EpochContents.of(epoch, consumed);
                LoaderState state = epoch.state();
                assertEquals(new LoaderState(EPOCH, consumed, 7, from, r), state);
                checkpoints.add(JSON.writeValueAsString(state)); // as a trainer stores it with its checkpoint
                EpochContents tail = EpochContents.of(epoch);
                head.allIds().forEach(id -> {
                    taken.add(id);
                    visited.add(id);
                });
                visited.addAll(tail.allIds());
            }
        }
        Set<Long> expected = new HashSet<>(visited);
        expected.removeAll(taken);
        List<Long> delivered = new ArrayList<>();
        Set<Long> batchCounts = new HashSet<>();
        for (int r = 0; r < to; r++) {
            LoaderOptions options = options(order, dropLast, r, to);
            // Any old rank's checkpoint resumes any new rank.
            LoaderState saved = JSON.readValue(checkpoints.get((r * 5 + 3) % from), LoaderState.class);
            EpochContents next;
            try (Loader loader = Loader.open(dataset, options)) {
                try (Epoch epoch = loader.resume(saved)) {
                    assertEquals(consumed, epoch.batchesConsumed());
                    batchCounts.add(epoch.batches() - consumed);
                    EpochContents rest = EpochContents.of(epoch);
                    assertEquals(epoch.batches(), epoch.batchesConsumed());
                    assertEquals(new LoaderState(EPOCH, epoch.batches(), 7, to, r,
                        List.of(new LoaderState.Segment(from, consumed))), epoch.state());
                    forEachSample(rest, (id, label, image) -> {
                        delivered.add(id);
                        assertEquals(referenceLabels.get(id), label, "label of record " + id);
                        assertArrayEquals(referenceImages.get(id), image, "record " + id + " cropped as in an "
                            + "uninterrupted epoch");
                    });
                }
                try (Epoch epoch = loader.epoch(EPOCH + 1)) {
                    next = EpochContents.of(epoch);
                }
            }
            try (Loader fresh = Loader.open(dataset, options); Epoch epoch = fresh.epoch(EPOCH + 1)) {
                EpochContents.of(epoch).assertSameAs(next);
            }
        }
        assertEquals(1, batchCounts.size(), "equal batch counts on the new ranks: " + batchCounts);
        assertEquals(expected.size(), delivered.size(), "no sample twice: " + delivered);
        assertEquals(expected, new HashSet<>(delivered), "exactly the epoch's unconsumed samples");
    }

    /**
     * Elastic resume and persistent workers together: a 4-rank checkpoint resumed on 3 ranks, the workers filling
     * the next epoch ahead while the resized one is still being taken, then epochs back to back on the same
     * loader. The resized epoch is what a loader that only resumes delivers (its short batches, also one short
     * before the last, skip their spare places), and every later epoch continues the run (no reset) on the plain
     * plan of the new world: a fresh 3-rank loader's epoch, batch for batch and pixel for pixel.
     */
    @Test
    void fourToThreeMidEpochThenBackToBackEpochsAreTheNewWorldsFreshOnes() throws Exception {
        for (long consumed = 0; consumed <= 4; consumed++) { // 61 on 4: 4 batches of 4; 4 leaves nothing
            LoaderState saved = new LoaderState(EPOCH, consumed, 7, 4, 1);
            for (int r = 0; r < 3; r++) {
                LoaderOptions options = options(SampleOrder.RANDOM, false, r, 3).toBuilder()
                    .workers(1 + (int) (consumed % 3)).prefetch(8).build();
                String what = consumed + " batches on 4, rank " + r + " of 3";
                EpochContents resized;
                try (Loader reference = Loader.open(dataset, options); Epoch epoch = reference.resume(saved)) {
                    resized = EpochContents.of(epoch);
                }
                try (Loader loader = Loader.open(dataset, options)) {
                    try (Epoch epoch = loader.resume(saved)) {
                        long rest = resized.allIds().size();
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                        while (loader.samplesFilled() <= rest) { // the next epoch's first sample: filled ahead
                            assertTrue(System.nanoTime() < deadline, what + ": the workers did not fill ahead");
                            Thread.sleep(1);
                        }
                        resized.assertSameAs(EpochContents.of(epoch));
                        assertEquals(List.of(new LoaderState.Segment(4, consumed)), epoch.state().segments(), what);
                    }
                    for (int e = EPOCH + 1; e <= EPOCH + 3; e++) {
                        try (Epoch epoch = loader.epoch(e)) {
                            assertEquals(e - EPOCH, epoch.segment(), what + ": epoch " + e + " continues the run");
                            assertEquals(loader.batchesPerEpoch(), epoch.batches(), what);
                            EpochContents.fresh(dataset, options, e).assertSameAs(EpochContents.of(epoch));
                            assertEquals(new LoaderState(e, loader.batchesPerEpoch(), 7, 3, r), epoch.state(), what);
                            assertEquals(e, loader.currentEpoch(), what);
                            assertEquals(loader.batchesPerEpoch(), loader.batchInEpoch(), what);
                        }
                    }
                }
            }
        }
    }

    @Test
    void resumedOnANewWorldThenAgainOnItContinuesItsSplit() {
        LoaderState onEight = new LoaderState(EPOCH, 1, 7, 8, 5);
        LoaderState onThree;
        EpochContents head;
        EpochContents whole;
        try (Loader loader = Loader.open(dataset, options(SampleOrder.RANDOM, false, 1, 3))) {
            try (Epoch epoch = loader.resume(onEight)) {
                head = EpochContents.of(epoch, 1);
                onThree = epoch.state();
            }
            try (Epoch epoch = loader.resume(onEight)) {
                whole = EpochContents.of(epoch);
            }
        }
        assertEquals(new LoaderState(EPOCH, 2, 7, 3, 1, List.of(new LoaderState.Segment(8, 1))), onThree);
        try (Loader loader = Loader.open(dataset, options(SampleOrder.RANDOM, false, 1, 3).toBuilder().workers(3)
            .build()); Epoch epoch = loader.resume(onThree)) {
            EpochContents tail = EpochContents.of(epoch);
            whole.assertSameAs(head.then(tail));
        }
    }

    @Test
    void anotherRanksStateResumesThisRanksBatchesOnTheSameWorld() {
        LoaderOptions rankTwo = options(SampleOrder.QUASI_RANDOM, false, 2, 3);
        EpochContents whole;
        try (Loader loader = Loader.open(dataset, rankTwo); Epoch epoch = loader.epoch(EPOCH)) {
            whole = EpochContents.of(epoch);
        }
        LoaderState fromRankZero;
        try (Loader loader = Loader.open(dataset, options(SampleOrder.QUASI_RANDOM, false, 0, 3));
             Epoch epoch = loader.epoch(EPOCH)) {
            EpochContents.of(epoch, 2);
            fromRankZero = epoch.state();
        }
        try (Loader loader = Loader.open(dataset, rankTwo); Epoch epoch = loader.resume(fromRankZero)) {
            EpochContents tail = EpochContents.of(epoch);
            EpochContents expected = new EpochContents(whole.ids().subList(2, whole.ids().size()),
                whole.labels().subList(2, whole.labels().size()), whole.pixels().subList(2, whole.pixels().size()));
            expected.assertSameAs(tail);
            assertEquals(new LoaderState(EPOCH, whole.ids().size(), 7, 3, 2), epoch.state());
        }
    }

    @Test
    void refusesAnotherSeedAndStatesPastTheEnd() {
        try (Loader loader = Loader.open(dataset, options(SampleOrder.RANDOM, false, 0, 3))) {
            IllegalArgumentException seed = assertThrows(IllegalArgumentException.class,
                () -> loader.resume(new LoaderState(EPOCH, 1, 8, 8, 0)));
            assertTrue(seed.getMessage().contains("was saved with seed 8, this loader's is 7"), seed.getMessage());
            // 61 on 3 ranks: 21 each, 6 batches of 4.
            IllegalArgumentException plain = assertThrows(IllegalArgumentException.class,
                () -> loader.resume(new LoaderState(EPOCH, 7, 7, 3, 2)));
            assertTrue(plain.getMessage().contains("is past the end of the epoch (6 batches)"), plain.getMessage());
            IllegalArgumentException elastic = assertThrows(IllegalArgumentException.class,
                () -> loader.resume(new LoaderState(EPOCH, 3, 7, 8, 2)));
            assertTrue(elastic.getMessage().contains("the epoch started on 8 ranks, which have 2 batches per rank"),
                elastic.getMessage());
            // A refused state leaves the loader usable.
            try (Epoch epoch = loader.epoch(EPOCH)) {
                assertEquals(6, EpochContents.of(epoch).ids().size());
            }
        }
    }
}
