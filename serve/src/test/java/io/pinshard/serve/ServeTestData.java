package io.pinshard.serve;

import io.pinshard.format.Codec;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A small raw dataset: record r is a 40 x 48 image filled with the byte r % 251, label r % 5, so any crop of it is
 * that byte too and a reader can check each pixel it gets against the sample id. Shared with the cli's
 * PythonClientTest through the test-jar.
 */
public final class ServeTestData {
    public static final int HEIGHT = 40;
    public static final int WIDTH = 48;

    private ServeTestData() {
    }

    public static Path write(Path directory, int records) throws IOException {
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withClasses(List.of("a", "b", "c", "d", "e"));
        byte[] pixels = new byte[HEIGHT * WIDTH * 3];
        try (DatasetWriter writer = new DatasetWriter(directory, options)) {
            for (int r = 0; r < records; r++) {
                java.util.Arrays.fill(pixels, (byte) (r % 251));
                writer.appendPixels(new UnsafeBuffer(pixels), 0, HEIGHT, WIDTH, 3, r % 5, "img/" + r, Codec.RAW);
            }
            writer.finish();
        }
        return directory;
    }
}
