package io.pinshard.loader.work;

import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR_RGB;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imdecode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.loader.Epoch;
import io.pinshard.loader.Loader;
import io.pinshard.loader.TestDatasets;
import io.pinshard.loader.augment.CropBox;
import io.pinshard.loader.augment.CropCorrectnessTest;
import io.pinshard.loader.options.LoaderMode;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.ring.Batch;
import io.pinshard.memory.AddressPointer;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** JPEG records much larger than the crop are decoded at 1/2..1/8 DCT scale; the crops must still be right. */
class ReducedJpegTest {
    @TempDir
    Path temp;

    @Test
    void reducedDecodesGiveTheSameCropsAsFullDecodesWithinJpegScalingError() throws Exception {
        Path dir = temp.resolve("big-jpeg");
        try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults())) {
            for (int r = 0; r < 12; r++) {
                int height = 300 + 8 * r;
                int width = 400 - 4 * r;
                byte[] jpeg = TestDatasets.jpeg(smooth(r, height, width), height, width, 3);
                writer.appendPayload(Codec.JPEG, new UnsafeBuffer(jpeg), 0, jpeg.length, height, width, 3, -1, "big-" + r);
            }
            writer.finish();
        }
        int crop = 32;
        LoaderOptions options = TestDatasets.small().crop(crop).batchSize(4).mode(LoaderMode.EVAL).build();
        int reduced = 0;
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, options);
             Epoch epoch = loader.epoch(0)) {
            SampleProcessor boxes = SampleProcessor.of(options, dataset);
            RecordView view = new RecordView();
            for (Batch batch : epoch) {
                try (batch) {
                    for (int i = 0; i < batch.size(); i++) {
                        dataset.record(batch.sampleId(i), view);
                        CropBox box = boxes.boxFor(view, 0);
                        reduced += SampleProcessor.reduction(box, crop, true) > 1 ? 1 : 0;
                        byte[] expected = CropCorrectnessTest.reference(fullDecode(view), view.width(), 3, box, crop);
                        double meanError = CropCorrectnessTest.meanError(batch.imageAddress(i), expected);
                        assertTrue(meanError < 3, "record " + view.globalRecord() + " " + box + ": mean error " + meanError);
                    }
                }
            }
            boxes.close();
        }
        assertEquals(12, reduced, "every record was large enough for a reduced decode");
    }

    /**
     * Low-frequency content: a DCT-scaled decode averages pixels while bilinear sampling of the full image
     * picks them, and the two only agree where there is nothing finer than the reduction to alias.
     */
    private static java.nio.ByteBuffer smooth(int record, int height, int width) {
        java.nio.ByteBuffer pixels = java.nio.ByteBuffer.allocateDirect(height * width * 3);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                for (int c = 0; c < 3; c++) {
                    double v = 128 + 90 * Math.sin(x / 70.0 + c + record) * Math.cos(y / 55.0 - c) + 20 * c;
                    pixels.put((y * width + x) * 3 + c, (byte) Math.max(0, Math.min(255, (int) v)));
                }
            }
        }
        return pixels;
    }

    private static byte[] fullDecode(RecordView view) {
        try (Mat encoded = new Mat(1, view.payloadLength(), org.bytedeco.opencv.global.opencv_core.CV_8UC1,
                new AddressPointer().at(view.payloadAddress(), view.payloadLength()));
             Mat rgb = imdecode(encoded, IMREAD_COLOR_RGB)) {
            byte[] pixels = new byte[view.decodedBytes()];
            rgb.data().get(pixels);
            return pixels;
        }
    }
}
