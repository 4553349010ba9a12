package io.pinshard.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldType;
import io.pinshard.memory.HeapCounter;
import io.pinshard.memory.HeapRounds;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import io.pinshard.writer.FieldValues;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reading fields allocates nothing per record: pointing a view at a record, then each field's length, elements,
 * address, numbers and a copy of its bytes into off-heap memory, over 2,000 records of several shards (the first
 * field read of each shard checks its section, so the rounds after the first measure the steady state). ThreadMXBean
 * counts, least of several rounds (JIT noise).
 */
class FieldsZeroHeapTest {
    @TempDir
    Path dir;

    @Test
    void fieldReadsAllocateNothingPerRecord() throws IOException {
        Assumptions.assumeTrue(HeapCounter.currentThreadAllocatedBytes() >= 0, "no allocation counter on this JVM");
        List<FieldSchema> schema = List.of(FieldSchema.variable("caption", FieldType.UTF8),
            FieldSchema.fixed("box", FieldType.FLOAT32, 4), FieldSchema.variable("tags", FieldType.INT64));
        int records = 2000;
        try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults().withFields(schema)
            .withTargetShardBytes(64 << 10))) {
            FieldValues values = writer.newFieldValues();
            byte[] pixels = TestImages.pixels(1, 4, 4, 3);
            for (int r = 0; r < records; r++) {
                values.clear().utf8("caption", "caption of record " + r).float32("box", r, 1, 2, 3)
                    .int64("tags", r, -r);
                writer.appendPixels(new UnsafeBuffer(pixels), 0, 4, 4, 3, -1, "k" + r, Codec.RAW, values);
            }
            writer.finish();
        }
        try (Dataset dataset = Dataset.open(dir)) {
            assertTrue(dataset.shardCount() > 1);
            RecordView view = new RecordView();
            ByteBuffer scratch = ByteBuffer.allocateDirect(256);
            long address = new UnsafeBuffer(scratch).addressOffset();
            long[] sink = new long[1];
            Runnable round = () -> {
                long sum = 0;
                for (long r = 0; r < records; r++) {
                    dataset.record(r, view);
                    sum += view.fieldLength(0) + view.fieldElements(2) + view.fieldLong(2, 1)
                        + (long) view.fieldFloat(1, 0) + view.copyField(0, address) + (view.fieldAddress(1) & 1);
                }
                sink[0] = sum;
            };
            round.run(); // first use of each shard's fields: the section checks, once
            long least = HeapRounds.least(10, 0, round);
            assertEquals(0, least, "heap bytes for " + records + " records' field reads, least of up to 10 rounds");
            assertTrue(sink[0] != 0);
        }
    }
}
