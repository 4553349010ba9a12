package io.pinshard.loader;

import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.ring.Batch;
import java.util.ArrayList;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;

/** Copies of what an epoch delivered, for comparisons in tests. */
public record EpochContents(List<long[]> ids, List<int[]> labels, List<byte[]> pixels) {
    public static EpochContents of(Epoch epoch) {
        return of(epoch, Long.MAX_VALUE);
    }

    /** Epoch {@code epoch} from a new loader over {@code dataset} (nothing run before it). */
    public static EpochContents fresh(io.pinshard.reader.Dataset dataset, LoaderOptions options, int epoch) {
        try (Loader loader = Loader.open(dataset, options); Epoch batches = loader.epoch(epoch)) {
            return of(batches);
        }
    }

    /** Reads at most {@code maxBatches} batches. */
    public static EpochContents of(Epoch epoch, long maxBatches) {
        EpochContents contents = new EpochContents(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        for (long n = 0; n < maxBatches && epoch.hasNext(); n++) {
            try (Batch batch = epoch.next()) {
                contents.add(batch);
            }
        }
        return contents;
    }

    void add(Batch batch) {
        long[] batchIds = new long[batch.size()];
        int[] batchLabels = new int[batch.size()];
        for (int i = 0; i < batch.size(); i++) {
            batchIds[i] = batch.sampleId(i);
            batchLabels[i] = batch.label(i);
        }
        byte[] image = new byte[(int) batch.tensorBytes()];
        new UnsafeBuffer(batch.address(), image.length).getBytes(0, image);
        ids.add(batchIds);
        labels.add(batchLabels);
        pixels.add(image);
    }

    /** These batches followed by {@code tail}'s (a run stopped at a checkpoint, then its resumed rest). */
    EpochContents then(EpochContents tail) {
        EpochContents joined = new EpochContents(new ArrayList<>(ids), new ArrayList<>(labels), new ArrayList<>(pixels));
        joined.ids.addAll(tail.ids);
        joined.labels.addAll(tail.labels);
        joined.pixels.addAll(tail.pixels);
        return joined;
    }

    List<Long> allIds() {
        List<Long> all = new ArrayList<>();
        for (long[] batch : ids) {
            for (long id : batch) {
                all.add(id);
            }
        }
        return all;
    }

    public void assertSameAs(EpochContents other) {
        org.junit.jupiter.api.Assertions.assertEquals(ids.size(), other.ids.size(), "batch count");
        for (int b = 0; b < ids.size(); b++) {
            org.junit.jupiter.api.Assertions.assertArrayEquals(ids.get(b), other.ids.get(b), "ids of batch " + b);
            org.junit.jupiter.api.Assertions.assertArrayEquals(labels.get(b), other.labels.get(b), "labels of batch " + b);
            org.junit.jupiter.api.Assertions.assertArrayEquals(pixels.get(b), other.pixels.get(b), "pixels of batch " + b);
        }
    }
}
