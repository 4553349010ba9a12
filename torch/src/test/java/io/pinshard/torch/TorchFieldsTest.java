package io.pinshard.torch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.format.Codec;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldType;
import io.pinshard.loader.Loader;
import io.pinshard.loader.ring.Batch;
import io.pinshard.reader.Dataset;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import io.pinshard.writer.FieldValues;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The adapter's tensors of numeric record fields: each row is its sample's values, zero-padded, with its count. */
class TorchFieldsTest {
    private static final int RECORDS = 30;

    @TempDir
    Path dir;

    /** Record r: tags {r, 2r, ...} (r % 4 of them), a score r / 2 (fixed float32[1]) and a caption. */
    private Path write() throws Exception {
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withClasses(List.of("a", "b", "c"))
            .withFields(List.of(FieldSchema.variable("tags", FieldType.INT64), FieldSchema.fixed("score", FieldType.FLOAT32, 1),
                FieldSchema.variable("caption", FieldType.UTF8)));
        UnsafeBuffer pixels = new UnsafeBuffer(ByteBuffer.allocateDirect(TorchTestData.SIDE * TorchTestData.SIDE * 3));
        try (DatasetWriter writer = new DatasetWriter(dir, options)) {
            FieldValues values = writer.newFieldValues();
            for (int r = 0; r < RECORDS; r++) {
                long[] tags = new long[r % 4];
                for (int k = 0; k < tags.length; k++) {
                    tags[k] = (long) r * (k + 1);
                }
                values.clear().int64("tags", tags).float32("score", r / 2f).utf8("caption", "record " + r);
                writer.appendPixels(pixels, 0, TorchTestData.SIDE, TorchTestData.SIDE, 3, r % 3, "r" + r, Codec.RAW,
                    values);
            }
            writer.finish();
        }
        return dir;
    }

    @Test
    @SuppressWarnings("try")
    void numericFieldsAreTensorsOfTheirSamplesValues() throws Exception {
        assumeTrue(Libtorch.isAvailable(), Libtorch.status().describe());
        try (Dataset dataset = Dataset.open(write());
             Loader loader = Loader.open(dataset, TorchTestData.options().fields("tags", "score", "caption")
                 .fieldBytes(64).build());
             TorchLoader batches = TorchLoader.of(loader);
             TorchEpoch epoch = batches.epoch(0)) {
            int seen = 0;
            for (TorchBatch b : epoch) {
                try (b; PointerScope step = new PointerScope()) {
                    Batch raw = b.batch();
                    int n = raw.size();
                    Tensor tags = b.field("tags");
                    Tensor counts = b.fieldCounts("tags");
                    Tensor score = b.field("score");
                    assertEquals(torch.ScalarType.Long.value, tags.scalar_type().value);
                    assertEquals(torch.ScalarType.Float.value, score.scalar_type().value);
                    assertArrayEquals(new long[] {n, 64 / 8}, new long[] {tags.size(0), tags.size(1)});
                    for (int i = 0; i < n; i++) {
                        long r = raw.sampleId(i);
                        assertEquals(r % 4, counts.get(i).item_long(), "count of record " + r);
                        for (int k = 0; k < 8; k++) {
                            long want = k < r % 4 ? r * (k + 1) : 0;
                            assertEquals(want, tags.get(i).get(k).item_long(), "record " + r + " tag " + k);
                        }
                        assertEquals(r / 2f, score.get(i).get(0).item_float(), "score of record " + r);
                        assertEquals("record " + r, raw.fieldString(2, i));
                    }
                    IllegalArgumentException text = assertThrows(IllegalArgumentException.class,
                        () -> b.field("caption"));
                    assertEquals(true, text.getMessage().contains("fieldString"), text.getMessage());
                    assertThrows(IllegalArgumentException.class, () -> b.field("boxes"));
                    seen += n;
                }
            }
            assertEquals(RECORDS, seen);
        }
    }
}
