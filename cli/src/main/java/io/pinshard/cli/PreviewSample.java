package io.pinshard.cli;

import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * The records a preview shows, across the classes: with more classes than records shown, one record each of classes
 * spread evenly over the class list; else round-robin over the classes (every class once before any twice). Within a
 * class the records are in an order shuffled by the seed, so a seed gives the same sheet on every machine. The labels
 * are read from the records of at most {@value #SCANNED} records (evenly spaced over a larger local dataset) and of at
 * most {@value #SCANNED_SHARDS} shards of a streamed one, which fetches only those.
 */
final class PreviewSample {
    static final int SCANNED = 1 << 20;
    static final int SCANNED_SHARDS = 4;

    private PreviewSample() {
    }

    static long[] choose(Dataset dataset, int count, long seed) {
        Random random = new Random(seed);
        List<List<Long>> byClass = new ArrayList<>();
        int classes = Math.max(1, dataset.classes().size());
        for (int c = 0; c < classes; c++) {
            byClass.add(new ArrayList<>());
        }
        RecordView view = new RecordView();
        for (long record : candidates(dataset, random)) {
            int label = dataset.record(record, view).label();
            byClass.get(label >= 0 && label < classes ? label : 0).add(record);
        }
        byClass.forEach(records -> Collections.shuffle(records, random));
        byClass.removeIf(List::isEmpty);
        List<Long> chosen = new ArrayList<>();
        if (byClass.size() > count) {
            for (int i = 0; i < count; i++) {
                chosen.add(byClass.get((int) ((long) i * byClass.size() / count)).get(0));
            }
        } else {
            for (int round = 0; chosen.size() < count; round++) {
                boolean any = false;
                for (List<Long> records : byClass) {
                    if (round < records.size() && chosen.size() < count) {
                        chosen.add(records.get(round));
                        any = true;
                    }
                }
                if (!any) {
                    break;
                }
            }
        }
        return chosen.stream().mapToLong(Long::longValue).toArray();
    }

    private static long[] candidates(Dataset dataset, Random random) {
        long size = dataset.size();
        if (dataset.fetchConcurrency() > 0) { // each shard read costs a download: scan a few shards only
            List<Integer> shards = new ArrayList<>();
            for (int s = 0; s < dataset.shardCount(); s++) {
                shards.add(s);
            }
            Collections.shuffle(shards, random);
            List<Long> records = new ArrayList<>();
            for (int shard : shards.subList(0, Math.min(SCANNED_SHARDS, shards.size()))) {
                long first = dataset.firstRecordOf(shard);
                long end = shard + 1 < dataset.shardCount() ? dataset.firstRecordOf(shard + 1) : size;
                for (long r = first; r < end && records.size() < SCANNED; r++) {
                    records.add(r);
                }
            }
            return records.stream().mapToLong(Long::longValue).sorted().toArray();
        }
        int scanned = (int) Math.min(size, SCANNED);
        long[] records = new long[scanned];
        for (int i = 0; i < scanned; i++) {
            records[i] = i * size / scanned;
        }
        return records;
    }
}
