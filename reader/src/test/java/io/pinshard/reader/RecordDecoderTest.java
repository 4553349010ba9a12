package io.pinshard.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.format.ShardFormatException;
import io.pinshard.memory.HeapRounds;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.opencv.global.opencv_imgcodecs;
import org.bytedeco.opencv.opencv_core.Mat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecordDecoderTest {
    @TempDir
    Path dir;

    @Test
    void rawAndLz4DecodeWithoutAllocating() throws IOException {
        TestImages.writeDataset(dir, 50, 1 << 20);
        try (Dataset dataset = Dataset.open(dir)) {
            RecordView view = new RecordView();
            RecordDecoder decoder = new RecordDecoder(true);
            UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(1024));
            // Tiered JIT compilation allocates while it settles; steady state is what counts, so measure
            // rounds of 200,000 decodes until one allocates nothing (anything per decode would be >= 1.6 MB).
            long allocated = HeapRounds.least(6, 0, () -> {
                for (int i = 0; i < 200_000; i++) {
                    decoder.decode(dataset.record(i % 50, view), out, 0);
                }
            });
            assertEquals(0, allocated, "heap bytes for 200,000 raw/lz4 decodes in steady state");
        }
    }

    @Test
    void jpegDecodesToTheStoredShape() throws IOException {
        int height = 48;
        int width = 64;
        byte[] jpeg = encodeJpeg(height, width);
        try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults())) {
            writer.appendPayload(Codec.JPEG, new UnsafeBuffer(jpeg), 0, jpeg.length, height, width, 3, -1, "a.jpg");
            writer.appendPayload(Codec.JPEG, new UnsafeBuffer(jpeg), 0, jpeg.length, height + 1, width, 3, -1, "lies.jpg");
            writer.finish();
        }
        try (Dataset dataset = Dataset.open(dir)) {
            RecordView view = new RecordView();
            UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(4 * height * width * 3));
            RecordDecoder decoder = new RecordDecoder(true);
            assertEquals(height * width * 3, decoder.decode(dataset.record(0, view), out, 0));
            // The gradient survives JPEG within a few grey levels: red follows x, green follows y.
            int x = 40;
            int y = 10;
            int red = out.getByte((y * width + x) * 3) & 0xFF;
            int green = out.getByte((y * width + x) * 3 + 1) & 0xFF;
            assertTrue(Math.abs(red - x * 4) <= 6 && Math.abs(green - y * 5) <= 6, red + "," + green);
            ShardFormatException e = assertThrows(ShardFormatException.class, () -> decoder.decode(dataset.record(1, view), out, 0));
            assertEquals(ShardFormatException.Kind.UNDECODABLE_PAYLOAD, e.kind());
            assertEquals(1, e.record());
        }
    }

    @Test
    void destinationTooSmallIsRefusedBeforeWriting() throws IOException {
        TestImages.writeDataset(dir, 2, 1 << 20);
        try (Dataset dataset = Dataset.open(dir)) {
            RecordView view = dataset.record(0, new RecordView());
            UnsafeBuffer small = new UnsafeBuffer(ByteBuffer.allocateDirect(view.decodedBytes() - 1));
            assertThrows(IndexOutOfBoundsException.class, () -> new RecordDecoder(false).decode(view, small, 0));
            UnsafeBuffer heap = new UnsafeBuffer(new byte[1024]);
            assertThrows(IllegalArgumentException.class, () -> new RecordDecoder(false).decode(view, heap, 0));
        }
    }

    @Test
    void lz4DecodesIntoBareAddresses() throws IOException {
        TestImages.writeDataset(dir, 2, 1 << 20);
        try (Dataset dataset = Dataset.open(dir);
             io.pinshard.memory.NativeRegion region =
                 io.pinshard.memory.HostMemoryAllocator.INSTANCE.allocate(1024, 64)) {
            RecordView view = dataset.record(1, new RecordView());
            assertEquals(Codec.LZ4, view.codec());
            int n = new RecordDecoder(true).decode(view, region.address(), (int) region.length());
            byte[] read = new byte[n];
            new UnsafeBuffer(region.address(), n).getBytes(0, read);
            assertArrayEquals(TestImages.pixels(1, view.height(), view.width(), 3), read);
        }
    }

    static byte[] encodeJpeg(int height, int width) {
        try (Mat image = new Mat(height, width, org.bytedeco.opencv.global.opencv_core.CV_8UC3);
             BytePointer encoded = new BytePointer()) {
            UnsafeBuffer pixels = new UnsafeBuffer(image.data().address(), height * width * 3);
            for (int y = 0; y < height; y++) {
                for (int x = 0; x < width; x++) {
                    int at = (y * width + x) * 3;
                    pixels.putByte(at, (byte) 0);            // OpenCV holds BGR: blue
                    pixels.putByte(at + 1, (byte) (y * 5));  // green
                    pixels.putByte(at + 2, (byte) (x * 4));  // red
                }
            }
            assertTrue(opencv_imgcodecs.imencode(".jpg", image, encoded));
            byte[] bytes = new byte[(int) encoded.limit()];
            encoded.get(bytes);
            return bytes;
        }
    }
}
