package io.pinshard.examples.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.format.Codec;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import io.pinshard.loader.ring.Batch;
import io.pinshard.loader.Epoch;
import io.pinshard.loader.Loader;
import io.pinshard.loader.options.LoaderOptions;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The example scores the test split with {@code LoaderMode.EVAL} and {@code evalCropFraction(1.0)} at crop 28: every
 * test image must reach the model exactly as stored (no resampling, no crop), label included, each once.
 */
@org.junit.jupiter.api.Tag("process")
class EvalModeTest {
    private static Path data;

    @BeforeAll
    static void data() {
        data = FashionMnistData.datasets();
        assumeTrue(data != null, FashionMnistData.reasonMissing());
    }

    @Test
    void evalBatchesAreTheStoredTestImagesUnchanged() {
        LoaderOptions eval = LoaderOptions.builder().batchSize(500).crop(28).workers(2).shuffle(false)
            .eval().evalCropFraction(1.0).build();
        try (Dataset test = Dataset.open(data.resolve("test")); Loader loader = Loader.open(test, eval)) {
            RecordView view = new RecordView();
            UnsafeBuffer stored = new UnsafeBuffer(0, 0);
            UnsafeBuffer delivered = new UnsafeBuffer(0, 0);
            boolean[] seen = new boolean[(int) test.size()];
            long images = 0;
            try (Epoch epoch = loader.epoch(0)) {
                for (Batch batch : epoch) {
                    try (batch) {
                        for (int i = 0; i < batch.size(); i++) {
                            long record = batch.sampleId(i);
                            test.record(record, view);
                            assertEquals(Codec.RAW, view.codec());
                            assertEquals(28 * 28 * 3, view.payloadLength(), "record " + record);
                            stored.wrap(view.payloadAddress(), view.payloadLength());
                            delivered.wrap(batch.imageAddress(i), (int) batch.imageBytes());
                            for (int b = 0; b < view.payloadLength(); b++) {
                                if (stored.getByte(b) != delivered.getByte(b)) {
                                    throw new AssertionError("record " + record + " byte " + b + ": stored "
                                        + stored.getByte(b) + ", eval batch " + delivered.getByte(b));
                                }
                            }
                            assertEquals(view.label(), batch.label(i), "record " + record);
                            assertEquals(false, seen[(int) record], "record " + record + " twice");
                            seen[(int) record] = true;
                            images++;
                        }
                    }
                }
            }
            assertEquals(10_000, images);
        }
    }
}
