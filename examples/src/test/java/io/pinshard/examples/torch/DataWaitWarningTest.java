package io.pinshard.examples.torch;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.datawait.DataWaitMonitor;
import io.pinshard.reader.Dataset;
import io.pinshard.loader.Loader;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.torch.Libtorch;
import io.pinshard.torch.TorchBatch;
import io.pinshard.torch.TorchEpoch;
import io.pinshard.torch.TorchLoader;
import java.nio.file.Path;
import org.bytedeco.javacpp.PointerScope;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The seed's 10 % data-wait warning, on the training path, with a loader that really is too slow: one worker making
 * heavy crops (Fashion-MNIST's 28-pixel images random-resized-cropped up to 224 x 224, 64 per batch) for a trainer
 * whose step only reads the batch's tensors. It must fire; and the same loader must not warn a trainer whose step
 * takes longer than a batch takes to make (a 40 ms step standing for the accelerator's work).
 */
@org.junit.jupiter.api.Tag("process")
class DataWaitWarningTest {
    private static final int STEPS = 120; // two of the monitor's 50-step windows after warm-up
    private static Path data;

    @BeforeAll
    static void data() {
        assumeTrue(Libtorch.isAvailable(), Libtorch.status().describe());
        data = FashionMnistData.datasets();
        assumeTrue(data != null, FashionMnistData.reasonMissing());
    }

    @Test
    void firesWhenOneWorkerCannotKeepUp() {
        DataWaitMonitor monitor = train(0);
        assertTrue(monitor.warned(), "no warning at data-wait " + monitor.dataWaitPercent() + " %");
        assertTrue(monitor.dataWaitPercent() > 10, "data-wait " + monitor.dataWaitPercent() + " %");
    }

    @Test
    void staysQuietWhenTheStepIsTheBottleneck() {
        DataWaitMonitor monitor = train(40);
        assertFalse(monitor.warned(), "warning at data-wait " + monitor.dataWaitPercent() + " %");
        assertTrue(monitor.dataWaitPercent() < 10, "data-wait " + monitor.dataWaitPercent() + " %");
    }

    /** Runs {@link #STEPS} steps of the slow loader; each step reads the batch's tensors, then sleeps stepMillis. */
    @SuppressWarnings("try") // the step's PointerScope is opened for its close only
    private static DataWaitMonitor train(long stepMillis) {
        LoaderOptions heavy = LoaderOptions.builder().batchSize(64).crop(224).workers(1).prefetch(2)
            .shuffle(true).seed(3).dropLast(true).train().build();
        try (Dataset dataset = Dataset.open(data.resolve("train")); Loader loader = Loader.open(dataset, heavy);
             TorchLoader batches = TorchLoader.of(loader)) {
            long labelSum = 0;
            try (TorchEpoch epoch = batches.epoch(0)) {
                for (int s = 0; s < STEPS; s++) {
                    TorchBatch batch = epoch.next();
                    try (batch; PointerScope step = new PointerScope()) {
                        labelSum += batch.labels().sum().item_long() + batch.images().dim();
                    }
                    if (stepMillis > 0) {
                        Thread.sleep(stepMillis);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            assertTrue(labelSum > 0);
            return loader.dataWait();
        }
    }
}
