package io.pinshard.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldType;
import io.pinshard.format.Json;
import io.pinshard.format.ShardHeaderDescriptor;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import io.pinshard.writer.FieldValues;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Property test: random schemas (every type, fixed and variable lengths) and random values, including empty ones,
 * written through {@link DatasetWriter} and read back through {@link RecordView}'s field reads byte for byte and
 * element for element, across shard boundaries and alignments; then {@code verify} passes. 60 seeded cases.
 */
class FieldsRoundTripPropertyTest {
    @TempDir
    Path temp;

    static LongStream seeds() {
        return LongStream.range(0, 60);
    }

    static List<FieldSchema> randomSchema(SplittableRandom random) {
        List<FieldSchema> schema = new ArrayList<>();
        int count = random.nextInt(1, 7);
        FieldType[] types = FieldType.values();
        for (int f = 0; f < count; f++) {
            FieldType type = types[random.nextInt(types.length)];
            int length = type.isNumeric() && random.nextBoolean() ? random.nextInt(1, 6) : FieldSchema.VARIABLE;
            schema.add(new FieldSchema("f" + f + "_" + type.label(), type, length));
        }
        return schema;
    }

    /** A value's encoded bytes for field {@code field}: random text, bytes or elements. */
    static byte[] randomValue(SplittableRandom random, FieldSchema field) {
        if (!field.type().isNumeric()) {
            if (field.type() == FieldType.BYTES) {
                byte[] bytes = new byte[random.nextInt(0, 40)];
                random.nextBytes(bytes);
                return bytes;
            }
            StringBuilder text = new StringBuilder();
            for (int k = random.nextInt(0, 30); k > 0; k--) {
                text.appendCodePoint(random.nextInt(3) == 0 ? random.nextInt(0x80, 0x3000) : random.nextInt(' ', 0x7f));
            }
            String value = field.type() == FieldType.JSON ? Json.MAPPER.valueToTree(text.toString()).toString()
                : text.toString();
            return value.getBytes(StandardCharsets.UTF_8);
        }
        int elements = field.isFixed() ? field.length() : random.nextInt(0, 9);
        byte[] bytes = new byte[elements * field.type().elementBytes()];
        random.nextBytes(bytes);
        if (field.type() == FieldType.FLOAT32) { // NaN payloads would not survive float round trips: keep finite
            UnsafeBuffer view = new UnsafeBuffer(bytes);
            for (int i = 0; i < elements; i++) {
                view.putFloat(i * 4, (float) random.nextDouble(-1e6, 1e6), ByteOrder.LITTLE_ENDIAN);
            }
        }
        return bytes;
    }

    static void set(FieldValues values, FieldSchema field, byte[] bytes) {
        UnsafeBuffer view = new UnsafeBuffer(bytes);
        switch (field.type()) {
            case INT32 -> {
                int[] elements = new int[bytes.length / 4];
                for (int i = 0; i < elements.length; i++) {
                    elements[i] = view.getInt(i * 4, ByteOrder.LITTLE_ENDIAN);
                }
                values.int32(field.name(), elements);
            }
            case INT64 -> {
                long[] elements = new long[bytes.length / 8];
                for (int i = 0; i < elements.length; i++) {
                    elements[i] = view.getLong(i * 8, ByteOrder.LITTLE_ENDIAN);
                }
                values.int64(field.name(), elements);
            }
            case FLOAT32 -> {
                float[] elements = new float[bytes.length / 4];
                for (int i = 0; i < elements.length; i++) {
                    elements[i] = view.getFloat(i * 4, ByteOrder.LITTLE_ENDIAN);
                }
                values.float32(field.name(), elements);
            }
            case UTF8 -> values.utf8(field.name(), new String(bytes, StandardCharsets.UTF_8));
            case JSON -> values.json(field.name(), new String(bytes, StandardCharsets.UTF_8));
            default -> values.bytes(field.name(), bytes);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void fieldValuesReadBackIdentically(long seed) throws IOException {
        SplittableRandom random = new SplittableRandom(seed);
        List<FieldSchema> schema = randomSchema(random);
        int records = random.nextInt(0, 30);
        int alignment = new int[] {64, 128, 4096}[random.nextInt(3)];
        long shardBytes = new long[] {600, 4096, 1 << 20}[random.nextInt(3)];
        Path dir = temp.resolve("d" + seed);
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withAlignment(alignment)
            .withTargetShardBytes(shardBytes).withFields(schema);
        byte[][][] written = new byte[records][schema.size()][];
        try (DatasetWriter writer = new DatasetWriter(dir, options)) {
            FieldValues values = writer.newFieldValues();
            for (int r = 0; r < records; r++) {
                values.clear();
                for (int f = 0; f < schema.size(); f++) {
                    boolean skip = !schema.get(f).isFixed() && random.nextInt(5) == 0; // unset: stored empty
                    written[r][f] = skip ? new byte[0] : randomValue(random, schema.get(f));
                    if (!skip) {
                        set(values, schema.get(f), written[r][f]);
                    }
                }
                byte[] pixels = TestImages.pixels(r, 3, 2, 3);
                writer.appendPixels(new UnsafeBuffer(pixels), 0, 3, 2, 3, -1, "k" + r, Codec.RAW, values);
            }
            writer.finish();
        }
        DatasetManifest manifest = Json.readManifest(dir);
        assertEquals("1.1", manifest.formatVersion());
        assertEquals(schema, manifest.fields());
        try (Dataset dataset = Dataset.open(dir)) {
            assertEquals(schema, dataset.fields());
            RecordView view = new RecordView();
            for (int r = 0; r < records; r++) {
                dataset.record(r, view);
                assertEquals("k" + r, view.key());
                for (int f = 0; f < schema.size(); f++) {
                    FieldSchema field = schema.get(f);
                    byte[] expected = written[r][f];
                    assertEquals(expected.length, view.fieldLength(f), field.name() + " length, record " + r);
                    byte[] read = new byte[view.fieldLength(f)];
                    view.copyField(f, new UnsafeBuffer(read), 0);
                    assertArrayEquals(expected, read, field.name() + " bytes, record " + r);
                    UnsafeBuffer wanted = new UnsafeBuffer(expected);
                    int width = field.type().elementBytes();
                    assertEquals(expected.length / width, view.fieldElements(f));
                    for (int i = 0; field.type().isNumeric() && i < expected.length / width; i++) {
                        switch (field.type()) {
                            case INT32 -> assertEquals(wanted.getInt(i * 4, ByteOrder.LITTLE_ENDIAN), view.fieldInt(f, i));
                            case INT64 -> assertEquals(wanted.getLong(i * 8, ByteOrder.LITTLE_ENDIAN), view.fieldLong(f, i));
                            default -> assertEquals(wanted.getFloat(i * 4, ByteOrder.LITTLE_ENDIAN), view.fieldFloat(f, i));
                        }
                    }
                    if (field.type() == FieldType.UTF8) {
                        assertEquals(new String(expected, StandardCharsets.UTF_8), view.fieldString(f));
                    }
                    if (field.type().elementBytes() == 8) {
                        assertEquals(0, view.fieldOffset(f) % 8, "int64 values are 8-aligned in the file");
                    }
                }
            }
            for (int s = 0; s < dataset.shardCount(); s++) {
                assertEquals(ShardHeaderDescriptor.FIELDS_MINOR_VERSION, dataset.shard(s).structure().minorVersion());
            }
        }
        List<Problem> problems = new DatasetVerifier().verify(dir);
        assertTrue(problems.isEmpty(), "verify passes: " + problems);
    }
}
