package io.pinshard.reader;

import io.pinshard.format.Codec;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;

/** Generated images and small datasets for reader tests. */
final class TestImages {
    private TestImages() {
    }

    /** Deterministic pixels for record {@code n}: a gradient plus noise, so lz4 has something to do. */
    static byte[] pixels(long n, int height, int width, int channels) {
        byte[] pixels = new byte[height * width * channels];
        SplittableRandom random = new SplittableRandom(n * 7919 + height * 31L + width);
        for (int y = 0, i = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                for (int c = 0; c < channels; c++, i++) {
                    pixels[i] = (byte) ((x * 3 + y * 5 + c * 40 + n) + (random.nextInt(8)));
                }
            }
        }
        return pixels;
    }

    /** Writes {@code count} small raw/lz4 records (alternating) into a dataset at {@code dir}. */
    static void writeDataset(Path dir, int count, long targetShardBytes) throws IOException {
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withTargetShardBytes(targetShardBytes)
            .withClasses(List.of("a", "b", "c")).withWriterVersion("pinshard tests");
        try (DatasetWriter writer = new DatasetWriter(dir, options)) {
            for (int i = 0; i < count; i++) {
                int h = 3 + i % 5;
                int w = 4 + i % 7;
                byte[] pixels = pixels(i, h, w, 3);
                writer.appendPixels(new UnsafeBuffer(pixels), 0, h, w, 3, i % 3, "img/" + i + ".png",
                    i % 2 == 0 ? Codec.RAW : Codec.LZ4);
            }
            writer.finish();
        }
    }

    /**
     * Opens {@code dir} and reads the first record of every shard: what refuses a corrupt index, now that open
     * checks only frames and each shard's index is checked on its first use.
     */
    static void openAndTouchEveryShard(Path dir) {
        try (Dataset dataset = Dataset.open(dir)) {
            RecordView view = new RecordView();
            for (int s = 0; s < dataset.shardCount(); s++) {
                if (dataset.shard(s).recordCount() > 0) {
                    dataset.record(dataset.firstRecordOf(s), view);
                }
            }
        }
    }

    static ByteBuffer direct(int bytes) {
        return ByteBuffer.allocateDirect(bytes);
    }
}
