package io.pinshard.loader;

import static org.bytedeco.opencv.global.opencv_core.CV_8UC;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imencode;

import io.pinshard.format.Codec;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.memory.AddressPointer;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.opencv.opencv_core.Mat;

/** Small synthetic datasets for loader tests: smooth, record-specific images of varied sizes. */
public final class TestDatasets {
    private TestDatasets() {
    }

    /** Smooth pixels (gradients plus a record-specific pattern) so bilinear results are meaningful. */
    public static byte[] pixels(int record, int height, int width, int channels) {
        byte[] data = new byte[height * width * channels];
        SplittableRandom random = new SplittableRandom(record * 7919L + 1);
        double fx = 0.05 + random.nextDouble() * 0.2;
        double fy = 0.05 + random.nextDouble() * 0.2;
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                for (int c = 0; c < channels; c++) {
                    double v = 128 + 100 * Math.sin(fx * x + c) * Math.cos(fy * y - c) + (record % 17) * 3 - 24;
                    data[(y * width + x) * channels + c] = (byte) Math.max(0, Math.min(255, (int) v));
                }
            }
        }
        return data;
    }

    static int height(int record) {
        return 20 + (record * 7) % 23;
    }

    static int width(int record) {
        return 18 + (record * 11) % 29;
    }

    /** Writes {@code records} images with codec {@code codec}, rolling shards at about {@code shardBytes}. */
    public static Path write(Path directory, int records, Codec codec, int channels, long shardBytes) throws IOException {
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withTargetShardBytes(shardBytes)
            .withClasses(List.of("a", "b", "c", "d", "e"));
        try (DatasetWriter writer = new DatasetWriter(directory, options)) {
            for (int r = 0; r < records; r++) {
                append(writer, r, height(r), width(r), channels, codec);
            }
            writer.finish();
        }
        return directory;
    }

    static void append(DatasetWriter writer, int record, int height, int width, int channels, Codec codec)
        throws IOException {
        byte[] data = pixels(record, height, width, channels);
        ByteBuffer direct = ByteBuffer.allocateDirect(data.length);
        direct.put(data).flip();
        UnsafeBuffer buffer = new UnsafeBuffer(direct);
        String key = "img/" + record + ".png";
        if (codec == Codec.JPEG) {
            byte[] jpeg = jpeg(direct, height, width, channels);
            writer.appendPayload(Codec.JPEG, new UnsafeBuffer(jpeg), 0, jpeg.length, height, width, channels,
                record % 5, key);
        } else {
            writer.appendPixels(buffer, 0, height, width, channels, record % 5, key, codec);
        }
    }

    /** JPEG bytes of RGB (or grey) pixels, encoded by OpenCV (which expects BGR order: swap for RGB). */
    public static byte[] jpeg(ByteBuffer pixels, int height, int width, int channels) {
        ByteBuffer bgr = ByteBuffer.allocateDirect(pixels.capacity());
        for (int i = 0; i < pixels.capacity(); i += channels) {
            for (int c = 0; c < channels; c++) {
                bgr.put(i + c, pixels.get(i + (channels == 3 ? 2 - c : c)));
            }
        }
        try (Mat mat = new Mat(height, width, CV_8UC(channels),
                new AddressPointer().at(org.agrona.BufferUtil.address(bgr), bgr.capacity()));
             BytePointer out = new BytePointer()) {
            imencode(".jpg", mat, out);
            byte[] bytes = new byte[(int) out.limit()];
            out.get(bytes);
            return bytes;
        }
    }

    /** Flips {@code mask} in one payload byte of {@code record} (at {@code where.applyAsInt(payloadLength)}); index untouched. */
    static void flipPayloadByte(Path dir, int record, java.util.function.IntUnaryOperator where, int mask)
        throws IOException {
        String shard;
        long offset;
        try (Dataset dataset = Dataset.open(dir)) {
            RecordView view = dataset.record(record, new RecordView());
            shard = view.shard().name();
            offset = view.payloadOffset() + where.applyAsInt(view.payloadLength());
        }
        try (java.io.RandomAccessFile file = new java.io.RandomAccessFile(dir.resolve(shard).toFile(), "rw")) {
            file.seek(offset);
            int b = file.read();
            file.seek(offset);
            file.write(b ^ mask);
        }
    }

    public static LoaderOptions.Builder small() {
        return LoaderOptions.builder().batchSize(8).crop(16).workers(2).prefetch(4).seed(7);
    }
}
