package io.pinshard.loader;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pinshard.format.Codec;
import io.pinshard.loader.options.ErrorPolicy;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.LoaderState;
import io.pinshard.loader.ring.Batch;
import io.pinshard.reader.CrcCheck;
import io.pinshard.reader.Dataset;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's trainer example, compiled and run so the documentation cannot rot. */
class TrainerExampleTest {
    @TempDir
    Path temp;

    @Test
    void readmeExampleRuns() throws Exception {
        Path dir = TestDatasets.write(temp.resolve("train"), 40, Codec.LZ4, 3, 1 << 20);
        long[] seen = new long[1];
        // --- README example starts ---
        LoaderOptions options = LoaderOptions.builder()
            .batchSize(8).crop(32)            // batch x 32 x 32 x 3 uint8, NHWC
            .workers(2).prefetch(4)           // threads, ring slots
            .shuffle(true).seed(42)           // RANDOM order, reproducible per (seed, epoch)
            .dropLast(true)
            .distributed(0, 1)                // rank, world size
            .crcCheck(CrcCheck.AUTO)          // jpeg and lz4 payloads checked (the default)
            .errorPolicy(ErrorPolicy.SKIP)
            .build();
        LoaderState checkpoint = null;
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, options)) {
            for (int epoch = 0; epoch < 2; epoch++) {
                try (Epoch batches = loader.epoch(epoch)) {
                    for (Batch batch : batches) {
                        try (batch) {
                            long images = batch.address();       // NHWC uint8, batch.size() images
                            long labels = batch.labelsAddress(); // int32 per image
                            long ids = batch.sampleIdsAddress(); // int64 record number per image
                            seen[0] += batch.size();             // train(images, labels, batch.size()) here
                        }
                        checkpoint = batches.state();            // store with the model checkpoint
                    }
                }
                LoaderStats stats = loader.stats();              // images/s, MB/s, data-wait %, worker busy %
            }
        }
        // --- README example ends ---
        assertEquals(2 * 40, seen[0]);
        assertEquals(new LoaderState(1, 5, 42, 1, 0), checkpoint);
    }
}
