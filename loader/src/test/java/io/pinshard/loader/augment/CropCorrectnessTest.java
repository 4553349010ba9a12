package io.pinshard.loader.augment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.format.Codec;
import io.pinshard.loader.Epoch;
import io.pinshard.loader.Loader;
import io.pinshard.loader.TestDatasets;
import io.pinshard.loader.options.LoaderMode;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.Resampler;
import io.pinshard.loader.ring.Batch;
import io.pinshard.loader.sample.SplitMix;
import io.pinshard.loader.work.SampleProcessor;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every augmented crop equals a plain float reference of the same box, bilinear resize and flip, with each resampler. */
public class CropCorrectnessTest {
    @TempDir
    Path temp;

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Resampler.class, names = {"OPENCV", "VECTOR"})
    void trainCropsMatchTheReferenceWithinOneGreyLevel(Resampler resampler) throws Exception {
        assumeRunnable(resampler);
        check(Codec.RAW, 3, LoaderMode.TRAIN, 24, resampler);
        check(Codec.LZ4, 3, LoaderMode.TRAIN, 24, resampler);
        check(Codec.RAW, 1, LoaderMode.TRAIN, 24, resampler);
        check(Codec.RAW, 4, LoaderMode.TRAIN, 16, resampler);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Resampler.class, names = {"OPENCV", "VECTOR"})
    void evalCropsMatchTheReference(Resampler resampler) throws Exception {
        assumeRunnable(resampler);
        check(Codec.RAW, 3, LoaderMode.EVAL, 20, resampler);
    }

    /**
     * Batch memory another process could truncate (pinshard serve's ring) gets OpenCV's crops through a private
     * image and a guarded copy: the same bytes as OpenCV writing the slot itself, for 1, 3 and 4 channels, with flips.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Resampler.class, names = {"OPENCV", "AUTO"})
    void sharedBatchMemoryGetsTheSameCropsAsPrivateMemory(Resampler resampler) throws Exception {
        for (int channels : new int[] {1, 3, 4}) {
            Path dir = TestDatasets.write(temp.resolve("shared-" + resampler + "-" + channels), 40, Codec.RAW,
                channels, 1 << 20);
            LoaderOptions direct = TestDatasets.small().crop(24).seed(5).resampler(resampler).build();
            LoaderOptions shared = direct.toBuilder().allocator(new SharedWithOtherProcesses()).build();
            try (Dataset dataset = Dataset.open(dir); Loader privateLoader = Loader.open(dataset, direct);
                 Loader sharedLoader = Loader.open(dataset, shared);
                 Epoch privateEpoch = privateLoader.epoch(2); Epoch sharedEpoch = sharedLoader.epoch(2)) {
                while (privateEpoch.hasNext()) {
                    try (Batch expected = privateEpoch.next(); Batch actual = sharedEpoch.next()) {
                        UnsafeBuffer want = new UnsafeBuffer(expected.address(), (int) expected.tensorBytes());
                        UnsafeBuffer got = new UnsafeBuffer(actual.address(), (int) actual.tensorBytes());
                        assertEquals(0, want.compareTo(got), channels + " channels, " + expected);
                        for (int i = 0; i < expected.size(); i++) {
                            assertEquals(expected.sampleId(i), actual.sampleId(i));
                            assertEquals(expected.label(i), actual.label(i));
                        }
                    }
                }
            }
        }
    }

    /** Host memory that says another process could change it, as the ring does. */
    private static final class SharedWithOtherProcesses implements io.pinshard.memory.BatchMemoryAllocator {
        @Override
        public io.pinshard.memory.NativeRegion allocate(long length, int alignment) {
            return io.pinshard.memory.HostMemoryAllocator.INSTANCE.allocate(length, alignment);
        }

        @Override
        public String name() {
            return "host, shared";
        }

        @Override
        public boolean sharedWithOtherProcesses() {
            return true;
        }
    }

    private static void assumeRunnable(Resampler resampler) {
        String reason = Resampler.vectorUnavailableReason();
        assumeTrue(resampler != Resampler.VECTOR || reason == null, "vector kernel not runnable here: " + reason);
    }

    private void check(Codec codec, int channels, LoaderMode mode, int crop, Resampler resampler) throws Exception {
        Path dir = TestDatasets.write(temp.resolve(resampler + "-" + codec + "-" + channels + "-" + mode), 40, codec,
            channels, 1 << 20);
        LoaderOptions options = TestDatasets.small().crop(crop).mode(mode).seed(11).resampler(resampler).build();
        int flips = 0;
        int boxesSmallerThanImage = 0;
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, options);
             Epoch epoch = loader.epoch(1)) {
            SampleProcessor boxes = SampleProcessor.of(options, dataset);
            RecordView view = new RecordView();
            for (Batch batch : epoch) {
                try (batch) {
                    for (int i = 0; i < batch.size(); i++) {
                        int record = (int) batch.sampleId(i);
                        dataset.record(record, view);
                        CropBox box = boxes.boxFor(view, SplitMix.mix(options.sampling().seed(), 1, record));
                        flips += box.flip() ? 1 : 0;
                        boxesSmallerThanImage += box.width() < view.width() ? 1 : 0;
                        byte[] expected = reference(TestDatasets.pixels(record, view.height(), view.width(), channels),
                            view.width(), channels, box, crop);
                        double meanError = meanError(batch.imageAddress(i), expected);
                        assertTrue(meanError <= 1.0, codec + " record " + record + " " + box + ": mean error "
                            + meanError);
                        assertEquals(view.label(), batch.label(i));
                    }
                }
            }
            boxes.close();
        }
        if (mode == LoaderMode.TRAIN) {
            assertTrue(flips > 5 && flips < 35, "about half the crops are flipped: " + flips);
            assertTrue(boxesSmallerThanImage > 20, "random boxes are mostly smaller than the image");
        }
    }

    /** Mean absolute difference, in grey levels, between the bytes at {@code image} and {@code expected}. */
    public static double meanError(long image, byte[] expected) {
        byte[] actual = new byte[expected.length];
        new UnsafeBuffer(image, actual.length).getBytes(0, actual);
        double sum = 0;
        for (int k = 0; k < actual.length; k++) {
            sum += Math.abs((actual[k] & 255) - (expected[k] & 255));
        }
        return sum / actual.length;
    }

    /** Straightforward bilinear (half-pixel centres, edge clamp) of the box to crop x crop, then RGB expansion and flip. */
    public static byte[] reference(byte[] image, int width, int channels, CropBox box, int crop) {
        return reference(image, width, channels, box, crop, width * channels);
    }

    /** The same over rows {@code step} bytes apart. */
    public static byte[] reference(byte[] image, int width, int channels, CropBox box, int crop, int step) {
        byte[] out = new byte[crop * crop * 3];
        double sx = (double) box.width() / crop;
        double sy = (double) box.height() / crop;
        for (int y = 0; y < crop; y++) {
            double fy = Math.max(0, (y + 0.5) * sy - 0.5);
            int y0 = Math.min((int) fy, box.height() - 1);
            int y1 = Math.min(y0 + 1, box.height() - 1);
            double wy = Math.min(fy - y0, 1);
            for (int x = 0; x < crop; x++) {
                double fx = Math.max(0, (x + 0.5) * sx - 0.5);
                int x0 = Math.min((int) fx, box.width() - 1);
                int x1 = Math.min(x0 + 1, box.width() - 1);
                double wx = Math.min(fx - x0, 1);
                int outX = box.flip() ? crop - 1 - x : x;
                for (int c = 0; c < 3; c++) {
                    int sc = channels == 1 ? 0 : c;
                    double v = (1 - wy) * ((1 - wx) * px(image, step, channels, box, y0, x0, sc)
                        + wx * px(image, step, channels, box, y0, x1, sc))
                        + wy * ((1 - wx) * px(image, step, channels, box, y1, x0, sc)
                        + wx * px(image, step, channels, box, y1, x1, sc));
                    out[(y * crop + outX) * 3 + c] = (byte) Math.round(v);
                }
            }
        }
        return out;
    }

    private static int px(byte[] image, int step, int channels, CropBox box, int y, int x, int c) {
        return image[(box.y() + y) * step + (box.x() + x) * channels + c] & 255;
    }
}
