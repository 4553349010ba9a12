package io.pinshard.loader.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.pinshard.loader.TestDatasets;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.LoaderState;
import io.pinshard.loader.options.SampleOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 27 at 100 M records, on the plan alone (no dataset on disk): an epoch started on 8 ranks and resumed on 6
 * delivers every record exactly once, checked by counting into a bitmap of seen records (12.5 MB; no list of
 * 100 M ids), and the state that resumes it stays under 4 KB.
 */
class ElasticScaleTest {
    private static final int RECORDS = 100_000_000;
    private static final int BATCH = 256;
    private static final int EPOCH = 2;
    private static final long SEED = 27;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** 9,954 shards of about 10,046 records, as scripts/bench-scale.sh writes 100 M. */
    private static long[] shards() {
        long[] starts = new long[9_955];
        for (int s = 0; s < starts.length; s++) {
            starts[s] = (long) RECORDS * s / (starts.length - 1);
        }
        return starts;
    }

    private static LoaderOptions options(SampleOrder order, int rank, int world) {
        return TestDatasets.small().batchSize(BATCH).order(order).seed(SEED).distributed(rank, world).build();
    }

    /** A bitmap of seen records that refuses a record seen twice. */
    private static final class Seen {
        final long[] bits = new long[(RECORDS + 63) / 64];
        long count;

        /** Marks {@code record}, delivered by rank {@code rank} of {@code world} at {@code unit} {@code at}. */
        void mark(int record, int rank, int world, String unit, long at) {
            long bit = 1L << record;
            long word = bits[record >>> 6];
            if ((word & bit) != 0) { // the message only now: 100 M of them cost most of this test's time
                throw new AssertionError("record " + record + " delivered twice, rank " + rank + " of " + world + ", "
                    + unit + " " + at);
            }
            bits[record >>> 6] = word | bit;
            count++;
        }
    }

    @Test
    void eightToSixRanksMidEpochDeliversEveryRecordExactlyOnce() {
        for (SampleOrder order : new SampleOrder[] {SampleOrder.RANDOM, SampleOrder.QUASI_RANDOM}) {
            Seen seen = new Seen();
            long consumed = 20_000; // of 48,829 batches per rank on 8 ranks
            long[] shards = shards();
            for (int r = 0; r < 8; r++) {
                EpochPlan plan = new EpochPlan(RECORDS, shards, options(order, r, 8).sampling());
                plan.prepare(0, EPOCH);
                for (long p = 0; p < consumed * BATCH; p++) {
                    seen.mark(plan.recordAt(0, p), r, 8, "place", p);
                }
            }
            assertEquals(8 * consumed * BATCH, seen.count);
            LoaderState state = new LoaderState(EPOCH, consumed, SEED, 8, 0);
            long batches = -1;
            for (int r = 0; r < 6; r++) {
                ElasticSplit split = ElasticSplit.resume(state, RECORDS, options(order, r, 6).sampling());
                assertEquals(consumed, split.startBatch());
                assertTrue(split.runs() <= 3, "a block of 6 holds at most 3 of the 8 old ranks' rests: " + split.runs());
                EpochPlan plan = new EpochPlan(RECORDS, shards, options(order, r, 6).sampling());
                plan.prepare(0, EPOCH, split);
                long end = split.offsetBatches() + split.batches();
                batches = batches < 0 ? end : batches;
                assertEquals(batches, end, "equal batch counts on the new ranks");
                for (long b = split.startBatch(); b < end; b++) {
                    int size = split.samplesIn(b);
                    for (int i = 0; i < BATCH; i++) {
                        int record = plan.recordAt(0, b * BATCH + i);
                        if (i < size) {
                            seen.mark(record, r, 6, "batch", b);
                        } else {
                            assertEquals(-1, record, "nothing past a short batch's end");
                        }
                    }
                }
            }
            assertEquals(RECORDS, seen.count, order + ": every record once over the epoch");
        }
    }

    @Test
    void theResumeStateOfAHundredMillionRecordsIsUnderFourKilobytes() throws Exception {
        // The largest a state gets: the most segments, each with large world sizes and batch counts.
        List<LoaderState.Segment> segments = new ArrayList<>();
        for (int i = 0; i < LoaderState.MAX_SEGMENTS; i++) {
            segments.add(new LoaderState.Segment(Integer.MAX_VALUE - i, 390_624L - i));
        }
        LoaderState largest = new LoaderState(Integer.MAX_VALUE, 8 * 390_624L, Long.MIN_VALUE, Integer.MAX_VALUE,
            Integer.MAX_VALUE - 1, segments);
        byte[] json = JSON.writeValueAsBytes(largest);
        assertTrue(json.length <= 4096, json.length + " bytes: " + new String(json, StandardCharsets.UTF_8));
        assertEquals(largest, JSON.readValue(json, LoaderState.class));
        // The one this epoch resumes from, 8 ranks then 6, at 100 M records.
        LoaderState resized = new LoaderState(EPOCH, 20_000 + 5_000, SEED, 6, 5,
            List.of(new LoaderState.Segment(8, 20_000)));
        byte[] small = JSON.writeValueAsBytes(resized);
        assertTrue(small.length < 200, small.length + " bytes");
        System.out.printf("loader state at 100 M records: %d bytes (8 -> 6 ranks), %d bytes (largest possible)%n",
            small.length, json.length);
    }
}
