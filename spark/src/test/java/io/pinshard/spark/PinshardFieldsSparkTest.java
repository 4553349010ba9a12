package io.pinshard.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldType;
import io.pinshard.format.Json;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.reader.RecordView;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import io.pinshard.writer.FieldValues;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Record fields through the Spark data source, in real Spark (local mode): a dataset the Java writer made reads
 * back with one column per field, and a DataFrame's columns written as fields read back the same, in the shards and
 * in Spark.
 */
@org.junit.jupiter.api.Tag("process")
class PinshardFieldsSparkTest {
    private static final int RECORDS = 20;
    private static final List<FieldSchema> SCHEMA = List.of(
        FieldSchema.variable("caption", FieldType.UTF8),
        FieldSchema.variable("meta", FieldType.JSON),
        FieldSchema.variable("blob", FieldType.BYTES),
        FieldSchema.variable("tags", FieldType.INT32),
        FieldSchema.fixed("ids", FieldType.INT64, 2),
        FieldSchema.variable("label", FieldType.FLOAT32)); // named like an index column: read as field_label

    @TempDir
    Path temp;

    @Test
    void aDatasetsFieldsReadAsColumnsOfTheirTypes() throws Exception {
        Path dir = temp.resolve("java-written");
        try (DatasetWriter writer = new DatasetWriter(dir, DatasetWriterOptions.defaults().withFields(SCHEMA))) {
            FieldValues values = writer.newFieldValues();
            byte[] pixels = new byte[4 * 5 * 3];
            for (int r = 0; r < RECORDS; r++) {
                int[] tags = new int[r % 3];
                java.util.Arrays.fill(tags, r);
                values.clear().utf8("caption", "caption " + r).json("meta", "{\"r\":" + r + "}")
                    .bytes("blob", new byte[] {(byte) r, 7}).int32("tags", tags).int64("ids", r, -r)
                    .float32("label", r / 4f);
                writer.appendPixels(new UnsafeBuffer(pixels), 0, 4, 5, 3, -1, "k" + r, Codec.RAW, values);
            }
            writer.finish();
        }
        SparkSession spark = SparkTestSupport.spark();
        Dataset<Row> frame = spark.read().format("pinshard").load(dir.toString());
        assertEquals("string", frame.schema().apply("caption").dataType().simpleString());
        assertEquals("array<int>", frame.schema().apply("tags").dataType().simpleString());
        assertEquals("array<bigint>", frame.schema().apply("ids").dataType().simpleString());
        assertEquals("array<float>", frame.schema().apply("field_label").dataType().simpleString());
        List<Row> rows = frame.orderBy("record").collectAsList();
        assertEquals(RECORDS, rows.size());
        for (Row row : rows) {
            int r = (int) row.getLong(row.fieldIndex("record"));
            assertEquals("caption " + r, row.getString(row.fieldIndex("caption")));
            assertEquals("{\"r\":" + r + "}", row.getString(row.fieldIndex("meta")));
            assertArrayEquals(new byte[] {(byte) r, 7}, (byte[]) row.get(row.fieldIndex("blob")));
            assertEquals(r % 3, row.getList(row.fieldIndex("tags")).size());
            row.<Integer>getList(row.fieldIndex("tags")).forEach(t -> assertEquals(r, t));
            assertEquals(List.of((long) r, (long) -r), row.getList(row.fieldIndex("ids")));
            assertEquals(List.of(r / 4f), row.getList(row.fieldIndex("field_label")));
            assertEquals(-1, row.getInt(row.fieldIndex("label")), "the index's label column is still the label");
        }
    }

    @Test
    void aDataFramesColumnsWrittenAsFieldsReadBackTheSame() throws Exception {
        StructType schema = new StructType().add("key", DataTypes.StringType).add("height", DataTypes.IntegerType)
            .add("width", DataTypes.IntegerType).add("channels", DataTypes.IntegerType).add("bytes", DataTypes.BinaryType)
            .add("caption", DataTypes.StringType).add("meta", DataTypes.StringType)
            .add("tags", DataTypes.createArrayType(DataTypes.IntegerType))
            .add("box", DataTypes.createArrayType(DataTypes.FloatType));
        List<Row> rows = new ArrayList<>();
        for (int r = 0; r < RECORDS; r++) {
            byte[] pixels = new byte[8 * 10 * 3];
            java.util.Arrays.fill(pixels, (byte) r);
            rows.add(RowFactory.create("img/" + r, 8, 10, 3, pixels, "a caption for " + r, "{\"n\":" + r + "}",
                java.util.Arrays.asList(r, r + 1), r == 5 ? java.util.Arrays.asList(1f, 2f) : java.util.Arrays.asList(0f, 0f, 10f, 8f)));
        }
        rows.add(RowFactory.create("img/bad-json", 8, 10, 3, new byte[240], "x", "{not json", List.of(), List.of(0f, 0f, 1f, 1f)));
        SparkSession spark = SparkTestSupport.spark();
        Path written = temp.resolve("spark-written");
        spark.createDataFrame(rows, schema).repartition(2).write().format("pinshard").mode("append").options(Map.of("codec", "raw",
            "fields", "caption,meta:json,tags,box:float32[4]", "labels", "none")).save(written.toString());
        assertEquals(List.of(), new DatasetVerifier().verify(written), "verify checks every field too");
        DatasetManifest manifest = Json.readManifest(written);
        assertEquals(List.of(FieldSchema.variable("caption", FieldType.UTF8), FieldSchema.variable("meta", FieldType.JSON),
            FieldSchema.variable("tags", FieldType.INT32), FieldSchema.fixed("box", FieldType.FLOAT32, 4)),
            manifest.fieldSchema());
        Map<String, String> rejected = PinshardWriteTest.rejections(manifest);
        assertEquals(java.util.Set.of("img/5", "img/bad-json"), rejected.keySet(), rejected.toString());
        assertTrue(rejected.get("img/5").contains("box"), rejected.get("img/5"));
        try (io.pinshard.reader.Dataset dataset = io.pinshard.reader.Dataset.open(written)) {
            assertEquals(RECORDS - 1, dataset.size());
            RecordView view = new RecordView();
            for (long n = 0; n < dataset.size(); n++) {
                dataset.record(n, view);
                int r = Integer.parseInt(view.key().substring(4));
                assertEquals("a caption for " + r, view.fieldString(0));
                assertEquals("{\"n\":" + r + "}", view.fieldString(1));
                assertEquals(r + 1, view.fieldInt(2, 1));
                assertEquals(10f, view.fieldFloat(3, 2));
            }
        }
        List<Row> back = spark.read().format("pinshard").load(written.toString()).orderBy("key").collectAsList();
        assertEquals(RECORDS - 1, back.size());
        for (Row row : back) {
            int r = Integer.parseInt(row.getString(row.fieldIndex("key")).substring(4));
            assertEquals("a caption for " + r, row.getString(row.fieldIndex("caption")));
            assertEquals(List.of(r, r + 1), row.getList(row.fieldIndex("tags")));
            assertEquals(List.of(0f, 0f, 10f, 8f), row.getList(row.fieldIndex("box")));
        }
        IllegalArgumentException wrongType = assertThrows(IllegalArgumentException.class,
            () -> WriteSettings.fieldOf("tags:utf8", schema));
        assertTrue(wrongType.getMessage().contains("does not fit column 'tags'"), wrongType.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> WriteSettings.fieldOf("nope", schema))
            .getMessage().contains("'nope'"));
    }
}
