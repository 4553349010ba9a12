package io.pinshard.writer.vectors;

import static io.pinshard.writer.vectors.VectorRecord.jpeg;
import static io.pinshard.writer.vectors.VectorRecord.lz4;
import static io.pinshard.writer.vectors.VectorRecord.raw;
import static io.pinshard.writer.vectors.VectorRecord.yuv420;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldType;
import io.pinshard.format.IndexEntryDescriptor;
import io.pinshard.format.ShardHeaderDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Every committed test vector and its content, the single source both the generator (which writes
 * them) and the reader-side tests (which check what they read) use. Changing anything here changes
 * the committed bytes: regenerate them (see format-spec/SPEC.md, "Test vectors").
 */
public final class TestVectorCatalog {
    /** Writer identity stored in every vector, fixed so the bytes do not follow the project version. */
    public static final String WRITER_VERSION = "pinshard test-vectors";
    public static final Map<String, Object> PREPROCESSING = Map.of("resize", "none", "source", "synthetic");
    /** System property that makes the vector test rewrite the committed vectors and SPEC.md's dumps. */
    public static final String REGENERATE_PROPERTY = "pinshard.regenerateVectors";

    private static final int NO_LABEL = IndexEntryDescriptor.NO_LABEL;
    private static final int ALIGN = ShardHeaderDescriptor.DEFAULT_ALIGNMENT;
    private static final long ONE_SHARD = 1 << 20;

    // Ramps shared by a JPEG input and the records made from it.
    private static final PixelRamp RGB_8X8 = new PixelRamp(40, 12, 8, 30);
    private static final PixelRamp RGB_6X10 = new PixelRamp(30, 15, 10, 20);
    private static final PixelRamp GRAY_8X8 = new PixelRamp(20, 25, 5, 0);

    /** The fields vector's schema: every type, fixed and variable lengths (SPEC.md section 17). */
    public static final List<FieldSchema> ALL_FIELD_TYPES = List.of(
        FieldSchema.variable("caption", FieldType.UTF8),
        FieldSchema.variable("meta", FieldType.JSON),
        FieldSchema.variable("blob", FieldType.BYTES),
        FieldSchema.variable("tags", FieldType.INT32),
        FieldSchema.fixed("id", FieldType.INT64, 1),
        FieldSchema.fixed("box", FieldType.FLOAT32, 4),
        FieldSchema.variable("scores", FieldType.FLOAT32));

    public static final List<TestVector> ALL = List.of(
        new TestVector("tiny-dataset", true, ALIGN, List.of("cat", "dog", "bird"), 1600, 2, List.of(
            jpeg("cats/0001.jpg", 0, "rgb-8x8.jpg", 8, 8, 3, RGB_8X8),
            raw("cats/0002.png", 0, 4, 6, 3, new PixelRamp(10, 20, 9, 70)),
            lz4("dogs/0001.jpg", 1, 8, 8, 3, new PixelRamp(200, -20, 0, 25)),
            jpeg("dogs/0002.jpg", 1, "rgb-6x10.jpg", 6, 10, 3, RGB_6X10),
            jpeg("birds/0001.jpg", 2, "gray-8x8.jpg", 8, 8, 1, GRAY_8X8),
            lz4("birds/0002.png", 2, 4, 4, 4, new PixelRamp(5, 10, 10, 60))),
            List.of(new DatasetManifest.Rejected("birds/0003.gif", "unsupported image format"))),
        new TestVector("raw-2x3.pinshard", false, ALIGN, List.of("cat", "dog"), ONE_SHARD, 1, List.of(
            raw("cats/0001.png", 0, 2, 3, 3, new PixelRamp(0x10, 0x40, 0x10, 0x01)),
            raw("dogs/0001.png", 1, 2, 3, 3, new PixelRamp(0x80, 0x40, 0x10, 0x01))), List.of()),
        new TestVector("lz4-8x8.pinshard", false, ALIGN, List.of("cat", "dog"), ONE_SHARD, 1, List.of(
            lz4("dogs/0002.png", 1, 8, 8, 3, new PixelRamp(0x20, 0x10, 0, 0x01)),
            lz4("cats/0003.png", 0, 3, 5, 3, new PixelRamp(1, 15, 3, 50))), List.of()),
        new TestVector("jpeg-8x8.pinshard", false, ALIGN, List.of("cat", "bird"), ONE_SHARD, 1, List.of(
            jpeg("cats/0001.jpg", 0, "rgb-8x8.jpg", 8, 8, 3, RGB_8X8),
            jpeg("birds/0001.jpg", 1, "gray-8x8.jpg", 8, 8, 1, GRAY_8X8)), List.of()),
        new TestVector("align128-raw.pinshard", false, 128, List.of("cat", "dog"), ONE_SHARD, 1, List.of(
            raw("dogs/0003.png", 1, 3, 5, 3, new PixelRamp(0x05, 0x30, 0x08, 0x02)),
            raw("cats/0004.png", 0, 1, 1, 3, new PixelRamp(0xA0, 0, 0, 0x10)),
            raw("dogs/0004.png", 1, 2, 2, 4, new PixelRamp(0x11, 0x22, 0x44, 0x01))), List.of()),
        new TestVector("unlabelled-lz4.pinshard", false, ALIGN, List.of(), ONE_SHARD, 1, List.of(
            lz4("unsorted/a.png", NO_LABEL, 16, 16, 3, new PixelRamp(0, 16, 0, 64)),
            lz4("unsorted/b.png", NO_LABEL, 5, 7, 1, new PixelRamp(255, -30, -7, 0))), List.of()),
        new TestVector("gray-raw.pinshard", false, ALIGN, List.of("zero", "one"), ONE_SHARD, 1, List.of(
            raw("digits/0.png", 0, 4, 4, 1, new PixelRamp(0x00, 0x40, 0x10, 0)),
            lz4("digits/1.png", 1, 16, 16, 1, new PixelRamp(0, 0, 16, 0))), List.of()),
        new TestVector("yuv420-5x7.pinshard", false, ALIGN, List.of("cat", "dog"), ONE_SHARD, 1, List.of(
            yuv420("cats/0006.png", 0, 5, 7, new PixelRamp(0x10, 0x30, 0x18, 0x40)),
            yuv420("dogs/0006.png", 1, 1, 1, new PixelRamp(0xF0, 0, 0, -0x70)),
            yuv420("dogs/0007.png", 1, 2, 4, new PixelRamp(0xFF, -0x60, -0x20, -0x50))), List.of()),
        new TestVector("fields-dataset", true, ALIGN, List.of("cat", "dog"), ONE_SHARD, 1, List.of(
            raw("cats/0005.png", 0, 2, 2, 3, new PixelRamp(0x30, 0x20, 0x08, 0x01)).withFields(
                "a cat on a mat", "{\"licence\":\"cc-by\",\"url\":\"http://x/1\"}", new byte[] {(byte) 0xca, (byte) 0xfe},
                new int[] {3, 7}, new long[] {1L << 40}, new float[] {0.25f, 0.5f, 0.75f, 1f}, new float[] {0.9f}),
            raw("dogs/0005.png", 1, 1, 2, 3, new PixelRamp(0x90, 0, 0x10, 0x02)).withFields(
                "chien \u00e9t\u00e9", "[1,2]", new byte[0], new int[0], new long[] {-2},
                new float[] {0f, 0f, 0.5f, 0.5f}, new float[0]),
            lz4("dogs/0006.png", 1, 4, 4, 1, new PixelRamp(0x10, 0x10, 0x01, 0)).withFields(
                "", "null", new byte[] {1, 2, 3}, new int[] {-1, 0, 1}, new long[] {42},
                new float[] {-1f, 2f, -3f, 4f}, new float[] {1.5f, -2.5f})),
            List.of(), ALL_FIELD_TYPES));

    private TestVectorCatalog() {
    }

    public static TestVector named(String name) {
        return ALL.stream().filter(v -> v.name().equals(name)).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no test vector named " + name));
    }

    /** The repository root: the {@code pinshard.repo} property Maven sets, else found above the working directory. */
    public static Path repositoryRoot() {
        String configured = System.getProperty("pinshard.repo");
        if (configured != null && Files.isDirectory(Path.of(configured, "format-spec"))) {
            return Path.of(configured).toAbsolutePath();
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("format-spec/pom.xml"))) {
                return dir;
            }
        }
        throw new IllegalStateException("cannot find the repository root (format-spec/) above " + Path.of("").toAbsolutePath());
    }

    /** {@code format-spec/test-vectors}: the committed vectors. */
    public static Path committedDirectory() {
        return repositoryRoot().resolve("format-spec/test-vectors");
    }

    /** {@code format-spec/test-vectors/inputs}: the committed JPEG inputs. */
    public static Path inputsDirectory() {
        return committedDirectory().resolve("inputs");
    }

    public static Path specFile() {
        return repositoryRoot().resolve("format-spec/SPEC.md");
    }
}
