package io.pinshard.serve;

import io.pinshard.format.Codec;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldType;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import io.pinshard.writer.FieldValues;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A small raw dataset: record r is a 40 x 48 image filled with the byte r % 251, label r % 5, so any crop of it is
 * that byte too and a reader can check each pixel it gets against the sample id. Shared with other modules' tests
 * through the test-jar; {@link #main} writes the Python client's (scripts/test-python.sh).
 */
public final class ServeTestData {
    public static final int HEIGHT = 40;
    public static final int WIDTH = 48;

    private ServeTestData() {
    }

    /** Field schema of {@link #writeWithFields}. */
    public static final List<FieldSchema> FIELDS = List.of(FieldSchema.variable("caption", FieldType.UTF8),
        FieldSchema.fixed("tags", FieldType.INT32, 2), FieldSchema.variable("boxes", FieldType.FLOAT32));

    /**
     * {@code DIRECTORY RECORDS}: writes {@code DIRECTORY/data} ({@link #write}) and {@code DIRECTORY/fields}
     * ({@link #writeWithFields}) of RECORDS records each, the datasets python/tests reads.
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: ServeTestData DIRECTORY RECORDS");
            System.exit(2);
        }
        Path directory = Path.of(args[0]);
        int records = Integer.parseInt(args[1]);
        write(directory.resolve("data"), records);
        writeWithFields(directory.resolve("fields"), records);
    }

    public static Path write(Path directory, int records) throws IOException {
        return write(directory, records, false);
    }

    /**
     * As {@link #write}, with {@link #FIELDS}: record r's caption is "record r", its tags {r, r + 1}, and its boxes
     * the whole image {0, 0, WIDTH, HEIGHT} plus, for odd r, a box wholly outside it.
     */
    public static Path writeWithFields(Path directory, int records) throws IOException {
        return write(directory, records, true);
    }

    private static Path write(Path directory, int records, boolean fields) throws IOException {
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withClasses(List.of("a", "b", "c", "d", "e"));
        if (fields) {
            options = options.withFields(FIELDS);
        }
        byte[] pixels = new byte[HEIGHT * WIDTH * 3];
        try (DatasetWriter writer = new DatasetWriter(directory, options)) {
            FieldValues values = fields ? writer.newFieldValues() : null;
            for (int r = 0; r < records; r++) {
                java.util.Arrays.fill(pixels, (byte) (r % 251));
                if (fields) {
                    values.clear().utf8("caption", "record " + r).int32("tags", r, r + 1).float32("boxes",
                        r % 2 == 0 ? new float[] {0, 0, WIDTH, HEIGHT}
                            : new float[] {0, 0, WIDTH, HEIGHT, WIDTH + 5, 0, WIDTH + 9, 4});
                }
                writer.appendPixels(new UnsafeBuffer(pixels), 0, HEIGHT, WIDTH, 3, r % 5, "img/" + r, Codec.RAW,
                    values);
            }
            writer.finish();
        }
        return directory;
    }
}
