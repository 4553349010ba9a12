package io.pinshard.writer.vectors;

import io.pinshard.format.Codec;
import io.pinshard.format.DatasetManifest;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import io.pinshard.writer.FieldValues;
import java.awt.image.BufferedImage;
import java.awt.image.WritableRaster;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Iterator;
import java.util.stream.Stream;
import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.stream.ImageOutputStream;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Writes the test vectors of {@link TestVectorCatalog} with the real {@link DatasetWriter}. Raw and
 * LZ4 pixels come from each record's {@link PixelRamp}; JPEG payloads are the committed input files
 * stored as-is, so the vectors do not depend on any JPEG encoder.
 */
public final class TestVectorGenerator {
    private static final float JPEG_QUALITY = 0.95f;

    private TestVectorGenerator() {
    }

    /** Writes every vector into {@code out}, reading JPEG inputs from {@code inputs}. */
    public static void generateAll(Path out, Path inputs) throws IOException {
        Files.createDirectories(out);
        for (TestVector vector : TestVectorCatalog.ALL) {
            generate(vector, out, inputs);
        }
    }

    /** Writes one vector into {@code out}: a directory for a dataset vector, else one shard file. */
    public static void generate(TestVector vector, Path out, Path inputs) throws IOException {
        DatasetWriterOptions options = DatasetWriterOptions.defaults()
            .withWriterVersion(TestVectorCatalog.WRITER_VERSION)
            .withPreprocessing(TestVectorCatalog.PREPROCESSING)
            .withClasses(vector.classes())
            .withAlignment(vector.alignment())
            .withTargetShardBytes(vector.targetShardBytes())
            .withFields(vector.fields());
        Path directory = vector.dataset() ? out.resolve(vector.name()) : out.resolve(vector.name() + ".work");
        deleteRecursively(directory);
        DatasetManifest manifest;
        try (DatasetWriter writer = new DatasetWriter(directory, options)) {
            FieldValues values = vector.fields().isEmpty() ? null : writer.newFieldValues();
            for (VectorRecord record : vector.records()) {
                append(writer, record, inputs, fieldValues(values, vector, record));
            }
            vector.rejected().forEach(r -> writer.reject(r.path(), r.reason()));
            manifest = writer.finish();
        }
        if (manifest.shards().size() != vector.expectedShards()) {
            throw new IllegalStateException(vector.name() + " came out as " + manifest.shards().size()
                + " shards, the catalogue expects " + vector.expectedShards());
        }
        if (!vector.dataset()) {
            Path shard = out.resolve(vector.name());
            Files.move(directory.resolve(manifest.shards().get(0).file()), shard);
            deleteRecursively(directory);
        }
    }

    /** {@code values} set to the record's field values (null without fields). */
    static FieldValues fieldValues(FieldValues values, TestVector vector, VectorRecord record) {
        if (values == null) {
            return null;
        }
        values.clear();
        for (int f = 0; f < vector.fields().size(); f++) {
            String name = vector.fields().get(f).name();
            Object value = record.fieldValues().get(f);
            switch (vector.fields().get(f).type()) {
                case UTF8 -> values.utf8(name, (String) value);
                case JSON -> values.json(name, (String) value);
                case BYTES -> values.bytes(name, (byte[]) value);
                case INT32 -> values.int32(name, (int[]) value);
                case INT64 -> values.int64(name, (long[]) value);
                case FLOAT32 -> values.float32(name, (float[]) value);
                default -> throw new IllegalStateException("no such field type");
            }
        }
        return values;
    }

    private static void append(DatasetWriter writer, VectorRecord record, Path inputs, FieldValues values)
        throws IOException {
        if (record.codec() == Codec.JPEG) {
            byte[] jpeg = Files.readAllBytes(inputs.resolve(record.jpegInput()));
            checkJpegShape(record, jpeg);
            writer.appendPayload(Codec.JPEG, new UnsafeBuffer(jpeg), 0, jpeg.length, record.height(), record.width(),
                record.channels(), record.label(), record.key(), values);
        } else {
            writer.appendPixels(new UnsafeBuffer(record.sourcePixels()), 0, record.height(), record.width(),
                record.channels(), record.label(), record.key(), record.codec(), values);
        }
    }

    private static void checkJpegShape(VectorRecord record, byte[] jpeg) throws IOException {
        BufferedImage image = ImageIO.read(new ByteArrayInputStream(jpeg));
        if (image == null || image.getHeight() != record.height() || image.getWidth() != record.width()
            || image.getRaster().getNumBands() != record.channels()) {
            throw new IllegalStateException("input " + record.jpegInput() + " is not a " + record.height() + "x"
                + record.width() + "x" + record.channels() + " JPEG");
        }
    }

    /**
     * Creates each JPEG input that does not exist yet, from its record's ramp. Existing inputs are
     * never rewritten: their bytes are part of the committed vectors.
     */
    public static void createMissingInputs(Path inputs) throws IOException {
        Files.createDirectories(inputs);
        for (TestVector vector : TestVectorCatalog.ALL) {
            for (VectorRecord record : vector.records()) {
                if (record.jpegInput() != null && !Files.exists(inputs.resolve(record.jpegInput()))) {
                    writeJpeg(record, inputs.resolve(record.jpegInput()));
                }
            }
        }
    }

    private static void writeJpeg(VectorRecord record, Path file) throws IOException {
        boolean gray = record.channels() == 1;
        BufferedImage image = new BufferedImage(record.width(), record.height(),
            gray ? BufferedImage.TYPE_BYTE_GRAY : BufferedImage.TYPE_INT_RGB);
        WritableRaster raster = image.getRaster();
        int[] sample = new int[record.channels()];
        for (int y = 0; y < record.height(); y++) {
            for (int x = 0; x < record.width(); x++) {
                for (int c = 0; c < sample.length; c++) {
                    sample[c] = record.ramp().at(y, x, c);
                }
                raster.setPixel(x, y, sample);
            }
        }
        Iterator<ImageWriter> writers = ImageIO.getImageWritersByFormatName("jpeg");
        ImageWriter writer = writers.next();
        ImageWriteParam param = writer.getDefaultWriteParam();
        param.setCompressionMode(ImageWriteParam.MODE_EXPLICIT);
        param.setCompressionQuality(JPEG_QUALITY);
        try (ImageOutputStream stream = ImageIO.createImageOutputStream(file.toFile())) {
            writer.setOutput(stream);
            writer.write(null, new IIOImage(image, null, null), param);
        } finally {
            writer.dispose();
        }
    }

    static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(path)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
