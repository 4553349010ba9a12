package io.pinshard.s3.transfer;

import io.pinshard.format.Codec;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.agrona.concurrent.UnsafeBuffer;

/** Small real datasets for the push and pull tests (the cli's too): random (incompressible) raw pixels, two classes. */
public final class TestDatasets {
    private TestDatasets() {
    }

    /** {@code count} images of {@code side} x {@code side} x 3 in shards of about {@code shardBytes}. */
    public static Path write(Path dir, int count, int side, long shardBytes, long seed) throws IOException {
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withClasses(List.of("cat", "dog"))
            .withTargetShardBytes(shardBytes);
        Random random = new Random(seed);
        byte[] pixels = new byte[side * side * 3];
        try (DatasetWriter writer = new DatasetWriter(dir, options)) {
            for (int i = 0; i < count; i++) {
                random.nextBytes(pixels);
                writer.appendPixels(new UnsafeBuffer(pixels), 0, side, side, 3, i % 2, "img" + i, Codec.RAW);
            }
            writer.finish();
        }
        return dir;
    }

    /** The dataset's files (manifest and shards) by name, in name order. */
    public static List<Path> files(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(Files::isRegularFile).sorted().toList();
        }
    }
}
