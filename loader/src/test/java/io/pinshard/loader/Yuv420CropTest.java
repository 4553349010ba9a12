package io.pinshard.loader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pinshard.format.Codec;
import io.pinshard.loader.options.LoaderMode;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.Resampler;
import io.pinshard.memory.HostMemoryAllocator;
import io.pinshard.memory.NativeRegion;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordDecoder;
import io.pinshard.reader.RecordView;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loader's yuv420 crop, which converts each box row as it reads it, gives bit for bit the crop of the RGB image the
 * record decodes to (a raw record of those pixels): with the vector kernel, with OpenCV, and under the vector
 * resampler for boxes it leaves to OpenCV (wider than 3x the crop), over odd and even sizes, 1x1 included, mirrored or
 * not, in training and eval crops.
 */
class Yuv420CropTest {
    private static final int RECORDS = 40;

    @TempDir
    Path temp;

    @Test
    void yuv420CropsEqualTheCropsOfTheirDecodedPixels() throws Exception {
        Path yuv = temp.resolve("yuv");
        Path raw = temp.resolve("raw");
        SplittableRandom random = new SplittableRandom(420);
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withClasses(List.of("a"));
        try (DatasetWriter writer = new DatasetWriter(yuv, options)) {
            for (int r = 0; r < RECORDS; r++) {
                int height = r == 0 ? 1 : random.nextInt(1, 90);
                int width = r == 0 ? 1 : random.nextInt(1, 90);
                byte[] pixels = TestDatasets.pixels(r, height, width, 3);
                writer.appendPixels(new UnsafeBuffer(pixels), 0, height, width, 3, 0, "k" + r, Codec.YUV420);
            }
            writer.finish();
        }
        try (Dataset dataset = Dataset.open(yuv); DatasetWriter writer = new DatasetWriter(raw, options);
             RecordDecoder decoder = new RecordDecoder(true)) {
            RecordView view = new RecordView();
            for (int r = 0; r < RECORDS; r++) {
                dataset.record(r, view);
                ByteBuffer rgb = ByteBuffer.allocateDirect(view.decodedBytes());
                decoder.decode(view, new UnsafeBuffer(rgb), 0);
                writer.appendPixels(new UnsafeBuffer(rgb), 0, view.height(), view.width(), 3, 0, view.key(), Codec.RAW);
            }
            writer.finish();
        }
        try (Dataset yuvData = Dataset.open(yuv); Dataset rawData = Dataset.open(raw)) {
            for (Resampler resampler : new Resampler[] {Resampler.VECTOR, Resampler.OPENCV}) {
                for (LoaderMode mode : LoaderMode.values()) {
                    LoaderOptions loader = TestDatasets.small().crop(8).mode(mode).resampler(resampler).build();
                    assertSameCrops(yuvData, rawData, loader);
                }
            }
        }
    }

    private static void assertSameCrops(Dataset yuv, Dataset raw, LoaderOptions options) {
        try (RecordCropper fromYuv = new RecordCropper(yuv, options); RecordCropper fromRaw = new RecordCropper(raw, options);
             NativeRegion a = HostMemoryAllocator.INSTANCE.allocate(fromYuv.cropBytes(), 64);
             NativeRegion b = HostMemoryAllocator.INSTANCE.allocate(fromRaw.cropBytes(), 64)) {
            assertEquals(fromRaw.cropBytes(), fromYuv.cropBytes());
            byte[] expected = new byte[(int) fromRaw.cropBytes()];
            byte[] actual = new byte[expected.length];
            for (int epoch = 0; epoch < 4; epoch++) {
                for (int r = 0; r < RECORDS; r++) {
                    fromYuv.crop(r, epoch, a.address());
                    fromRaw.crop(r, epoch, b.address());
                    new UnsafeBuffer(a.address(), actual.length).getBytes(0, actual);
                    new UnsafeBuffer(b.address(), expected.length).getBytes(0, expected);
                    assertArrayEquals(expected, actual, options.augment().resampler() + " " + options.augment().mode()
                        + " epoch " + epoch + " record " + r);
                }
            }
        }
    }
}
