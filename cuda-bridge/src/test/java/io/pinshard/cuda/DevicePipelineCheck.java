package io.pinshard.cuda;

import io.pinshard.cuda.augment.AugmentSpec;
import io.pinshard.cuda.device.CudaBackend;
import io.pinshard.cuda.pipeline.DeviceBatch;
import io.pinshard.cuda.pipeline.DeviceBatchPipeline;
import io.pinshard.cuda.pipeline.DeviceBatchStream;
import io.pinshard.cuda.pipeline.PipelineOptions;
import io.pinshard.cuda.pipeline.PipelineStats;
import io.pinshard.cuda.runtime.CudaAvailability;
import io.pinshard.memory.HostBatchSource;
import java.util.Locale;
import org.agrona.CloseHelper;

/**
 * The device pipeline's throughput on a GPU, fed by test batches in pinned host memory that are never refilled, so
 * only the device side is measured (copy + float32 augmentation per 256 x 224 x 224 batch, the trainer only waits).
 * A harness, not a tool and not a test: {@code cuda-bridge/gpu-check.sh} runs it from the bundle's test jar after
 * {@link GpuCheck}; exit 2 without a usable GPU.
 */
public final class DevicePipelineCheck {
    private static final int SIDE = 224;

    private DevicePipelineCheck() {
    }

    public static void main(String[] args) {
        CudaAvailability.Status status = CudaAvailability.status();
        if (!status.available()) {
            System.out.println(status.describe());
            System.exit(2);
        }
        int batch = 256;
        int batches = 60;
        AugmentSpec spec = AugmentSpec.jitter(0.4f, 0.4f, 0.4f, 1);
        try (CudaBackend backend = CudaBackend.open(0)) {
            TestBatch[] ring = new TestBatch[4];
            try {
                for (int i = 0; i < ring.length; i++) {
                    ring[i] = new TestBatch(backend.hostAllocator(), "slot" + i, (long) i * batch, batch, SIDE, SIDE, i,
                        null);
                }
                int[] produced = {0};
                HostBatchSource source = () -> produced[0] == batches ? null : ring[produced[0]++ % ring.length];
                long elapsed;
                PipelineStats stats;
                try (DeviceBatchStream stream = new DeviceBatchStream(source,
                    new DeviceBatchPipeline(backend, new PipelineOptions(batch, SIDE, SIDE, 4, spec)), 3)) {
                    long start = System.nanoTime();
                    DeviceBatch device;
                    while ((device = stream.next()) != null) {
                        device.awaitReady();
                        device.close();
                    }
                    elapsed = System.nanoTime() - start;
                    stats = stream.stats();
                }
                System.out.printf(Locale.ROOT, "%ndevice pipeline (pinned host batches of %d, copy + augment float32):"
                        + " %.0f images/s, data-wait %.1f %% of the consumer's time%n", batch,
                    batches * (double) batch * 1e9 / elapsed, stats.dataWaitPercent());
            } finally {
                for (TestBatch b : ring) {
                    if (b != null) {
                        CloseHelper.closeAll(b.images, b.labels);
                    }
                }
            }
        }
    }
}
