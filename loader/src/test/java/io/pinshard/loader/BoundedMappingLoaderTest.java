package io.pinshard.loader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.SampleOrder;
import io.pinshard.reader.Dataset;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A loader over a dataset mapped under a bound delivers what it delivers over the same dataset mapped whole. */
class BoundedMappingLoaderTest {
    static final int LIMIT = 16;

    @TempDir
    Path temp;

    @Test
    void epochsAreTheSameWithABoundFarBelowTheShardCount() throws IOException {
        Path dir = TestDatasets.write(temp.resolve("lz4"), 240, Codec.LZ4, 3, 2 << 10);
        for (SampleOrder order : SampleOrder.values()) {
            LoaderOptions options = TestDatasets.small().order(order).quasiRandomWindow(5).build();
            try (Dataset whole = Dataset.open(dir); Dataset bounded = Dataset.open(dir, true, LIMIT)) {
                assertTrue(bounded.shardCount() > 3 * LIMIT, "shards: " + bounded.shardCount());
                assertEquals(LIMIT, bounded.mappingLimit());
                for (int epoch = 0; epoch < 2; epoch++) {
                    EpochContents expected = EpochContents.fresh(whole, options, epoch);
                    EpochContents actual = EpochContents.fresh(bounded, options, epoch);
                    assertEquals(expected.ids().size(), actual.ids().size(), order + " epoch " + epoch);
                    for (int b = 0; b < expected.ids().size(); b++) {
                        assertArrayEquals(expected.ids().get(b), actual.ids().get(b), order + " batch " + b);
                        assertArrayEquals(expected.pixels().get(b), actual.pixels().get(b), order + " batch " + b);
                    }
                }
                long mapped = 0;
                for (int s = 0; s < bounded.shardCount(); s++) {
                    mapped += bounded.isLoaded(s) ? 1 : 0;
                }
                assertTrue(mapped <= LIMIT, mapped + " shards mapped");
            }
        }
    }
}
