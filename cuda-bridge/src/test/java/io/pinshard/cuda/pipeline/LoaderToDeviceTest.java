package io.pinshard.cuda.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.cuda.device.HostBackend;
import io.pinshard.cuda.monitor.GpuUtilization;
import io.pinshard.format.Codec;
import io.pinshard.loader.Epoch;
import io.pinshard.loader.Loader;
import io.pinshard.loader.LoaderBatchSource;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.ring.Batch;
import io.pinshard.reader.Dataset;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real loader feeding the device pipeline (host backend): same bytes, same order, every slot given back. */
class LoaderToDeviceTest {
    private static final int RECORDS = 45;
    private static final int SIDE = 24;
    private static final int CROP = 16;
    private static final int BATCH = 4;

    @TempDir
    static Path dir;

    @BeforeAll
    static void writeDataset() throws Exception {
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withClasses(List.of("a", "b", "c"));
        UnsafeBuffer pixels = new UnsafeBuffer(ByteBuffer.allocateDirect(SIDE * SIDE * 3));
        SplittableRandom random = new SplittableRandom(9);
        try (DatasetWriter writer = new DatasetWriter(dir, options)) {
            for (int r = 0; r < RECORDS; r++) {
                for (int i = 0; i < pixels.capacity(); i++) {
                    pixels.putByte(i, (byte) random.nextInt(256));
                }
                writer.appendPixels(pixels, 0, SIDE, SIDE, 3, r % 3, "r" + r, Codec.RAW);
            }
            writer.finish();
        }
    }

    private static LoaderOptions options(int prefetch) {
        return LoaderOptions.builder().batchSize(BATCH).crop(CROP).workers(2).seed(5).prefetch(prefetch).eval().build();
    }

    /** What the loader alone produces for epoch 0: the bytes and labels of every batch. */
    private static List<byte[]> loaderAlone(Dataset dataset) {
        List<byte[]> expected = new ArrayList<>();
        try (Loader loader = Loader.open(dataset, options(4)); Epoch epoch = loader.epoch(0)) {
            for (Batch batch : epoch) {
                try (batch) {
                    byte[] bytes = new byte[(int) batch.tensorBytes() + batch.size() * 4];
                    new UnsafeBuffer(batch.address(), (int) batch.tensorBytes()).getBytes(0, bytes, 0, (int) batch.tensorBytes());
                    new UnsafeBuffer(batch.labelsAddress(), batch.size() * 4).getBytes(0, bytes, (int) batch.tensorBytes(),
                        batch.size() * 4);
                    expected.add(bytes);
                }
            }
        }
        return expected;
    }

    @Test
    void deviceBatchesCarryTheLoadersBatchesInOrder() {
        try (Dataset dataset = Dataset.open(dir)) {
            List<byte[]> expected = loaderAlone(dataset);
            assertEquals((RECORDS + BATCH - 1) / BATCH, expected.size());
            try (HostBackend backend = new HostBackend();
                 Loader loader = Loader.open(dataset, options(3));
                 Epoch epoch = loader.epoch(0);
                 DeviceBatchStream stream = new DeviceBatchStream(new LoaderBatchSource(loader, epoch),
                     new DeviceBatchPipeline(backend, new PipelineOptions(BATCH, CROP, CROP, 4, null)), 3)) {
                int k = 0;
                for (DeviceBatch next = stream.next(); next != null; next = stream.next()) {
                    try (DeviceBatch device = next) {
                        long imageBytes = device.images().byteSize();
                        byte[] actual = new byte[(int) imageBytes + device.size() * 4];
                        new UnsafeBuffer(device.images().data(), (int) imageBytes).getBytes(0, actual, 0, (int) imageBytes);
                        new UnsafeBuffer(device.labels().data(), device.size() * 4).getBytes(0, actual, (int) imageBytes,
                            device.size() * 4);
                        assertArrayEquals(expected.get(k), actual, "batch " + k);
                        k++;
                    }
                }
                assertEquals(expected.size(), k);
                assertTrue(stream.stats().dataWaitNanos() >= 0);
            }
        }
    }

    @Test
    void aLoaderWithOneSlotIsRejected() {
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, options(1));
             Epoch epoch = loader.epoch(0)) {
            assertThrows(IllegalArgumentException.class, () -> new LoaderBatchSource(loader, epoch));
        }
    }

    @Test
    void oneStreamServesSeveralEpochsAndGivesEverySlotBack() {
        try (Dataset dataset = Dataset.open(dir);
             HostBackend backend = new HostBackend();
             Loader loader = Loader.open(dataset, options(3));
             DeviceBatchPipeline pipeline = new DeviceBatchPipeline(backend, new PipelineOptions(BATCH, CROP, CROP, 3, null))) {
            LoaderBatchSource source = new LoaderBatchSource(loader, null);
            assertThrows(IllegalStateException.class, source::next);
            DeviceBatchStream stream = new DeviceBatchStream(source, pipeline, 2);
            long perEpoch = loader.batchesPerEpoch();
            for (int e = 0; e < 3; e++) {
                // loader.epoch(e) would throw if a batch of the previous epoch were still held.
                try (Epoch epoch = loader.epoch(e)) {
                    source.epoch(epoch);
                    if (e > 0) {
                        stream.restart(source);
                    }
                    int seen = 0;
                    for (DeviceBatch batch = stream.next(); batch != null; batch = stream.next()) {
                        batch.close();
                        seen++;
                    }
                    pipeline.awaitCopies();
                    assertEquals(perEpoch, seen, "epoch " + e);
                }
            }
            assertEquals(3 * perEpoch, stream.stats().batches());
        }
    }

    @Test
    void theLoadersOwnDataWaitWarningSaysGpuUtilisationOrWhyThereIsNone() throws Exception {
        // No GpuUtilization.attach: cuda-bridge's registered DataWaitContext reaches the loader's monitor by itself.
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, options(4))) {
            long ms = 1_000_000;
            for (int step = 0; step < 200 && !loader.dataWait().warned(); step++) { // trainer waits half of each step
                loader.dataWait().record(5 * ms, (step + 1) * 10 * ms);
            }
            String warning = loader.dataWait().warning();
            assertTrue(warning != null && warning.startsWith("pinshard data-wait: training waited 50.0% of step time for host"
                + " batches from"), String.valueOf(warning));
            assertTrue(warning.endsWith(". The GPU idles: find the workers that keep it fed with: pinshard bench "
                + dataset.location() + " --sweep --gpu-rate IMAGES_PER_S"), warning);
            String reason = GpuUtilization.unavailableReason();
            if (reason != null) {
                assertTrue(warning.contains("; threshold 10%); " + reason + ". Try more workers"), warning);
            } else {
                assertTrue(java.util.regex.Pattern.compile("; threshold 10%\\); GPU 0 utilisation [0-9]+ %, memory "
                    + "controller [0-9]+ % \\(NVML\\)\\. Try more workers").matcher(warning).find(), warning);
            }
        }
    }
}
