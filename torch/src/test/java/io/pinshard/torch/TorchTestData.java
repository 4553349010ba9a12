package io.pinshard.torch;

import io.pinshard.format.Codec;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;

/** A small raw dataset of random pixels for the adapter's tests, and loader options over it. */
final class TorchTestData {
    static final int RECORDS = 45;
    static final int SIDE = 20;
    static final int CROP = 16;
    static final int BATCH = 8;
    static final int CLASSES = 3;

    private TorchTestData() {
    }

    static Path write(Path dir) throws IOException {
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withClasses(List.of("a", "b", "c"));
        UnsafeBuffer pixels = new UnsafeBuffer(ByteBuffer.allocateDirect(SIDE * SIDE * 3));
        SplittableRandom random = new SplittableRandom(11);
        try (DatasetWriter writer = new DatasetWriter(dir, options)) {
            for (int r = 0; r < RECORDS; r++) {
                for (int i = 0; i < pixels.capacity(); i++) {
                    pixels.putByte(i, (byte) random.nextInt(256));
                }
                writer.appendPixels(pixels, 0, SIDE, SIDE, 3, r % CLASSES, "r" + r, Codec.RAW);
            }
            writer.finish();
        }
        return dir;
    }

    /** 45 records in batches of 8: five full batches and a partial one of 5. */
    static LoaderOptions.Builder options() {
        return LoaderOptions.builder().batchSize(BATCH).crop(CROP).workers(2).prefetch(3).seed(3).train();
    }
}
