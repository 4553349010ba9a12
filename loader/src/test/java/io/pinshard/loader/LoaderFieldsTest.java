package io.pinshard.loader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldType;
import io.pinshard.loader.augment.BoxTransform;
import io.pinshard.loader.augment.CropBox;
import io.pinshard.loader.options.LoaderMode;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.ring.Batch;
import io.pinshard.loader.sample.SplitMix;
import io.pinshard.loader.work.SampleProcessor;
import io.pinshard.memory.HeapCounter;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import io.pinshard.writer.FieldValues;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Batches carry the selected record fields beside the pixels: each sample's caption, tags and metadata are its
 * record's, and its boxes are its record's moved through the very crop and flip its pixels got.
 */
class LoaderFieldsTest {
    private static final int RECORDS = 90;
    private static final List<FieldSchema> SCHEMA = List.of(
        FieldSchema.variable("caption", FieldType.UTF8),
        FieldSchema.variable("tags", FieldType.INT32),
        FieldSchema.variable("boxes", FieldType.FLOAT32),
        FieldSchema.variable("meta", FieldType.JSON));

    @TempDir
    Path temp;

    static String caption(int record) {
        return "record " + record + " " + "é".repeat(record % 7) + " a photo of a thing";
    }

    static int[] tags(int record) {
        int[] tags = new int[record % 4];
        for (int i = 0; i < tags.length; i++) {
            tags[i] = record * 10 + i;
        }
        return tags;
    }

    /** Whole image, a small box in the top-left corner, one past the right edge, and a variable number more. */
    static float[] boxes(int record) {
        int h = TestDatasets.height(record);
        int w = TestDatasets.width(record);
        List<Float> boxes = new ArrayList<>(List.of(0f, 0f, (float) w, (float) h, 1f, 1f, 4f, 5f,
            w + 2f, 0f, w + 9f, 3f));
        for (int i = 0; i < record % 3; i++) {
            boxes.addAll(List.of(w * 0.3f, h * 0.2f + i, w * 0.7f, h * 0.9f));
        }
        float[] out = new float[boxes.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = boxes.get(i);
        }
        return out;
    }

    private Path write(Codec codec) throws Exception {
        Path dir = temp.resolve("fields-" + codec.label());
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withTargetShardBytes(1 << 15)
            .withClasses(List.of("a", "b", "c", "d", "e")).withFields(SCHEMA);
        try (DatasetWriter writer = new DatasetWriter(dir, options)) {
            FieldValues values = writer.newFieldValues();
            for (int r = 0; r < RECORDS; r++) {
                int h = TestDatasets.height(r);
                int w = TestDatasets.width(r);
                byte[] data = TestDatasets.pixels(r, h, w, 3);
                values.clear().utf8("caption", caption(r)).int32("tags", tags(r)).float32("boxes", boxes(r))
                    .json("meta", "{\"record\":" + r + "}");
                writer.appendPixels(new UnsafeBuffer(data), 0, h, w, 3, r % 5, "img/" + r + ".png", codec, values);
            }
            writer.finish();
        }
        return dir;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = LoaderMode.class)
    void everySampleCarriesItsRecordsFieldsAndItsBoxesFollowItsCrop(LoaderMode mode) throws Exception {
        Path dir = write(Codec.RAW);
        LoaderOptions options = TestDatasets.small().batchSize(8).crop(24).mode(mode).seed(17).scale(0.3, 1.0)
            .fields("caption", "tags", "boxes", "meta").boxes("boxes", 0.2).build();
        ByteBuffer reference = ByteBuffer.allocateDirect(64 * BoxTransform.BOX_BYTES).order(ByteOrder.nativeOrder());
        UnsafeBuffer referenceView = new UnsafeBuffer(reference);
        Set<Long> seen = new HashSet<>();
        int boxesKept = 0;
        int boxesDropped = 0;
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, options);
             SampleProcessor processor = SampleProcessor.of(options, dataset); Epoch epoch = loader.epoch(3)) {
            RecordView view = new RecordView();
            BoxTransform transform = new BoxTransform(0.2);
            while (epoch.hasNext()) {
                try (Batch batch = epoch.next()) {
                    assertEquals(List.of("caption", "tags", "boxes", "meta"), batch.fields().names());
                    for (int i = 0; i < batch.size(); i++) {
                        int record = (int) batch.sampleId(i);
                        seen.add((long) record);
                        assertEquals(caption(record), batch.fieldString(0, i), "caption of record " + record);
                        int[] tags = tags(record);
                        assertEquals(tags.length * 4, batch.fieldLength(1, i));
                        for (int k = 0; k < tags.length; k++) {
                            assertEquals(tags[k], batch.fieldInt(1, i, k));
                        }
                        assertEquals("{\"record\":" + record + "}", batch.fieldString(3, i));
                        // The reference: the record's boxes through the crop box the processor draws for this
                        // sample (the same seed the workers use), by the tested transform.
                        dataset.record(record, view);
                        CropBox crop = processor.boxFor(view, SplitMix.mix(options.sampling().seed(), 3, record));
                        float[] boxes = boxes(record);
                        for (int k = 0; k < boxes.length; k++) {
                            referenceView.putFloat(k * 4, boxes[k]);
                        }
                        int kept = transform.transform(BufferUtil.address(reference), boxes.length / 4, crop, 24,
                            BufferUtil.address(reference), 0);
                        assertEquals(kept * BoxTransform.BOX_BYTES, batch.fieldLength(2, i),
                            "boxes kept of record " + record + " through " + crop);
                        for (int k = 0; k < kept * 4; k++) {
                            assertEquals(referenceView.getFloat(k * 4), batch.fieldFloat(2, i, k), 1e-5,
                                "record " + record + ", coordinate " + k);
                        }
                        assertTrue(kept >= 1, "the whole-image box survives a crop of at least 30 % of the image when 20 %"
                            + " must stay visible: record " + record);
                        boxesKept += kept;
                        boxesDropped += boxes.length / 4 - kept;
                    }
                }
            }
        }
        assertEquals(RECORDS, seen.size(), "every record once");
        assertTrue(boxesDropped >= RECORDS, "the box past the right edge is dropped every time: " + boxesDropped);
        assertTrue(boxesKept > RECORDS, boxesKept + " boxes kept");
    }

    @Test
    void aValueLongerThanTheSlotsRoomFailsNamingTheRecordAndTheField() throws Exception {
        Path dir = write(Codec.RAW);
        LoaderOptions options = TestDatasets.small().batchSize(8).crop(16).fields("caption").fieldBytes(20).build();
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, options);
             Epoch epoch = loader.epoch(0)) {
            RuntimeException failure = assertThrows(RuntimeException.class, () -> {
                while (epoch.hasNext()) {
                    epoch.next().close();
                }
            });
            String message = messages(failure);
            assertTrue(message.contains("field caption holds") && message.contains("fieldBytes")
                && message.contains("shard-"), message);
        }
    }

    @Test
    void unknownFieldsAndNonBoxFieldsAreRefusedAtOpen() throws Exception {
        Path dir = write(Codec.RAW);
        try (Dataset dataset = Dataset.open(dir)) {
            IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> Loader.open(dataset, TestDatasets.small().fields("captions").build()).close());
            assertTrue(unknown.getMessage().contains("has no field captions") && unknown.getMessage().contains("caption"),
                unknown.getMessage());
            IllegalArgumentException notBoxes = assertThrows(IllegalArgumentException.class,
                () -> Loader.open(dataset, TestDatasets.small().fields("tags").boxes("tags", 0).build()).close());
            assertTrue(notBoxes.getMessage().contains("float32"), notBoxes.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> TestDatasets.small().boxes("boxes", 0).build(),
            "boxes must be among the selected fields");
        assertThrows(IllegalArgumentException.class, () -> TestDatasets.small().fields("a", "a").build());
    }

    /**
     * The field path's heap per batch, measured and reported (the image path's zero-heap rule is
     * LoaderResourcesTest's): copying fields and transforming boxes allocates nothing per batch either.
     */
    @Test
    void theFieldPathAllocatesNoHeapPerBatchOnTheWorkers() throws Exception {
        Path dir = write(Codec.RAW);
        LoaderOptions options = TestDatasets.small().batchSize(8).crop(24).workers(2).seed(5)
            .fields("caption", "tags", "boxes").boxes("boxes", 0).build();
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, options)) {
            double perBatch = Double.MAX_VALUE;
            for (int e = 0; e < 60 && perBatch > 0; e++) {
                long before = loader.stats().workerHeapBytes();
                long batches = 0;
                try (Epoch epoch = loader.epoch(e)) {
                    while (epoch.hasNext()) {
                        try (Batch batch = epoch.next()) {
                            batches++;
                            for (int i = 0; i < batch.size(); i++) {
                                batch.fieldLength(0, i);
                                batch.fieldLength(2, i);
                            }
                        }
                    }
                }
                perBatch = Math.min(perBatch, (loader.stats().workerHeapBytes() - before) / (double) batches);
            }
            System.out.printf("fields: %.1f worker heap bytes per batch (caption, tags, boxes)%n", perBatch);
            if (HeapCounter.currentThreadAllocatedBytes() >= 0) {
                assertTrue(perBatch <= 64, perBatch + " worker heap bytes per batch with fields");
            }
        }
    }

    private static String messages(Throwable t) {
        StringBuilder all = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            all.append(c.getMessage()).append(" | ");
        }
        return all.toString();
    }
}
