package io.pinshard.reader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.format.Crc32c;
import io.pinshard.format.Json;
import io.pinshard.format.ShardStructure;
import io.pinshard.writer.vectors.TestVector;
import io.pinshard.writer.vectors.TestVectorCatalog;
import io.pinshard.writer.vectors.VectorRecord;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Opens every committed test vector with the reader and checks each record's codec, shape, label,
 * key and decoded pixels against the catalogue the vectors were generated from.
 */
class TestVectorsReadTest {
    /** JPEG is lossy: decoded samples may differ from the formula by this much at most ... */
    private static final int JPEG_MAX_ERROR = 16;
    /** ... and by this much on average. */
    private static final double JPEG_MEAN_ERROR = 3.0;

    private final RecordDecoder decoder = new RecordDecoder(true);
    private final Crc32c crc = new Crc32c();

    static Stream<String> vectors() {
        return TestVectorCatalog.ALL.stream().map(TestVector::name);
    }

    @ParameterizedTest
    @MethodSource("vectors")
    void readerFindsWhatTheGeneratorWrote(String name) throws IOException {
        TestVector vector = TestVectorCatalog.named(name);
        Path path = TestVectorCatalog.committedDirectory().resolve(name);
        if (vector.dataset()) {
            readDataset(vector, path);
        } else {
            try (MappedShard shard = MappedShard.open(path, null, true)) {
                assertEquals(vector.records().size(), shard.recordCount(), "records in " + name);
                checkShard(vector, shard, vector.records(), 0);
            }
        }
    }

    private void readDataset(TestVector vector, Path directory) throws IOException {
        try (Dataset dataset = Dataset.open(directory)) {
            assertEquals(vector.records().size(), dataset.size());
            assertEquals(vector.expectedShards(), dataset.shardCount());
            assertEquals(vector.classes(), dataset.classes());
            assertEquals(vector.fields(), dataset.fields());
            assertEquals(vector.fields().isEmpty() ? "1.0" : "1.1", dataset.manifest().formatVersion());
            assertEquals(vector.rejected(), dataset.manifest().rejected());
            assertEquals(TestVectorCatalog.WRITER_VERSION, dataset.manifest().metadata().get("writer"));
            for (int s = 0; s < dataset.shardCount(); s++) {
                MappedShard shard = dataset.shard(s);
                assertEquals(s, shard.structure().shardNumber(), "header shard number of " + shard.name());
                long first = dataset.firstRecordOf(s);
                checkShard(vector, shard, vector.records().subList((int) first, (int) (first + shard.recordCount())), first);
            }
            RecordView view = new RecordView();
            for (int i = 0; i < vector.records().size(); i++) {
                assertEquals(vector.records().get(i).key(), dataset.record(i, view).key(), "global record " + i);
            }
        }
        assertEquals(List.of(), new DatasetVerifier().verify(directory), "verify reports no problem");
    }

    private void checkShard(TestVector vector, MappedShard shard, List<VectorRecord> expected, long firstGlobal)
        throws IOException {
        ShardStructure structure = shard.structure();
        assertEquals(vector.alignment(), structure.alignment(), "alignment of " + shard.name());
        checkMetadata(vector, shard);
        RecordView view = new RecordView();
        for (int i = 0; i < expected.size(); i++) {
            VectorRecord record = expected.get(i);
            view.wrap(shard, i, firstGlobal + i);
            String where = shard.name() + " record " + i + " (" + record.key() + ")";
            assertEquals(record.key(), view.key(), where);
            assertEquals(record.label(), view.label(), where);
            assertEquals(record.codec(), view.codec(), where);
            assertEquals(List.of(record.height(), record.width(), record.channels()),
                List.of(view.height(), view.width(), view.channels()), where);
            assertEquals(0, view.payloadOffset() % vector.alignment(), where + " payload is aligned");
            assertTrue(view.payloadIntact(crc), where + " payload CRC32C");
            checkPixels(record, view, where);
            checkFields(vector, record, view, where);
        }
    }

    /** Each field value read back equals the catalogue's, element by element. */
    private static void checkFields(TestVector vector, VectorRecord record, RecordView view, String where) {
        for (int f = 0; f < vector.fields().size(); f++) {
            Object value = record.fieldValues().get(f);
            String what = where + " field " + vector.fields().get(f).name();
            switch (vector.fields().get(f).type()) {
                case UTF8, JSON -> assertEquals(value, view.fieldString(f), what);
                case BYTES -> {
                    byte[] read = new byte[view.fieldLength(f)];
                    view.copyField(f, new UnsafeBuffer(read), 0);
                    assertEquals(java.util.HexFormat.of().formatHex((byte[]) value),
                        java.util.HexFormat.of().formatHex(read), what);
                }
                case INT32 -> {
                    int[] expected = (int[]) value;
                    assertEquals(expected.length, view.fieldElements(f), what);
                    for (int i = 0; i < expected.length; i++) {
                        assertEquals(expected[i], view.fieldInt(f, i), what);
                    }
                }
                case INT64 -> {
                    long[] expected = (long[]) value;
                    assertEquals(expected.length, view.fieldElements(f), what);
                    for (int i = 0; i < expected.length; i++) {
                        assertEquals(expected[i], view.fieldLong(f, i), what);
                    }
                }
                default -> {
                    float[] expected = (float[]) value;
                    assertEquals(expected.length, view.fieldElements(f), what);
                    for (int i = 0; i < expected.length; i++) {
                        assertEquals(expected[i], view.fieldFloat(f, i), what);
                    }
                }
            }
        }
    }

    private static void checkMetadata(TestVector vector, MappedShard shard) throws IOException {
        ShardStructure s = shard.structure();
        byte[] json = new byte[(int) s.metadataLength()];
        shard.buffer().getBytes((int) s.metadataOffset(), json);
        Map<String, Object> metadata = Json.parseObject(json);
        assertEquals(vector.classes(), metadata.get("classes"));
        assertEquals(TestVectorCatalog.PREPROCESSING, metadata.get("preprocessing"));
        assertEquals(TestVectorCatalog.WRITER_VERSION, metadata.get("writer"));
    }

    private void checkPixels(VectorRecord record, RecordView view, String where) {
        byte[] expected = record.pixels();
        UnsafeBuffer destination = new UnsafeBuffer(ByteBuffer.allocateDirect(expected.length));
        assertEquals(expected.length, decoder.decode(view, destination, 0), where + " decoded bytes");
        byte[] actual = new byte[expected.length];
        destination.getBytes(0, actual);
        if (record.codec() != Codec.JPEG) {
            for (int i = 0; i < expected.length; i++) {
                assertEquals(expected[i] & 0xFF, actual[i] & 0xFF, where + " sample " + i);
            }
            return;
        }
        long total = 0;
        int worst = 0;
        for (int i = 0; i < expected.length; i++) {
            int error = Math.abs((expected[i] & 0xFF) - (actual[i] & 0xFF));
            total += error;
            worst = Math.max(worst, error);
        }
        double mean = (double) total / expected.length;
        assertTrue(worst <= JPEG_MAX_ERROR && mean <= JPEG_MEAN_ERROR, where + " decodes to pixels " + worst
            + " (max) / " + mean + " (mean) away from the formula");
    }
}
