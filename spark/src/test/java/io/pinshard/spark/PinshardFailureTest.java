package io.pinshard.spark;

import static io.pinshard.spark.SparkTestSupport.records;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.udf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.reader.DatasetVerifier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.spark.SparkException;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retries, duplicates and failed jobs leave no duplicate record, no partial shard and, for a failed job, nothing
 * that looks like a dataset. Spark does not speculate in local mode (TaskSchedulerImpl starts speculation only off
 * local), so the speculative duplicate is driven through the DataSource V2 API as Spark would drive it.
 */
@org.junit.jupiter.api.Tag("process")
class PinshardFailureTest {
    /** One record per shard: a task that fails part-way has finished shards in its staging folder. */
    static final Map<String, String> OPTIONS = Map.of("shorterSide", "128", "codec", "lz4", "shardSize", "4KiB");

    @TempDir
    static Path temp;
    static Path input;
    static Map<String, SparkTestSupport.Decoded> clean;

    /** Failure injection state, shared with the UDF (local mode: one JVM). */
    static final Map<Long, AtomicInteger> ROWS_PER_ATTEMPT = new ConcurrentHashMap<>();
    static final AtomicInteger INJECTED = new AtomicInteger();
    static volatile Path failingOutput;
    static volatile int stagedShardsAtFailure = -1;
    static volatile int unfinishedShardsAtFailure = -1;
    static volatile boolean failEveryAttempt;

    @BeforeAll
    static void input() throws IOException {
        Path photos = SparkTestSupport.photos();
        assumeTrue(photos != null, SparkTestSupport.NO_PHOTOS);
        input = temp.resolve("input");
        SparkTestSupport.copyPhotos(photos, input, false);
        Path reference = temp.resolve("reference");
        files(3).write().format("pinshard").mode("append").options(OPTIONS).option("root", input.toString())
            .save(reference.toString());
        clean = records(reference);
        assertTrue(clean.size() >= 12, "too few photos for the failure tests: " + clean.size());
    }

    /** The photos as binaryFile rows in {@code partitions} round-robin partitions, each path through the UDF. */
    static Dataset<Row> files(int partitions) {
        SparkSession spark = SparkTestSupport.spark();
        UserDefinedFunction fail = udf(new FailOnThirdRow(), DataTypes.StringType).asNondeterministic();
        return spark.read().format("binaryFile").option("recursiveFileLookup", "true").load(input.toString())
            .repartition(partitions).withColumn("path", fail.apply(col("path")));
    }

    /**
     * On partition 1 (attempt 0 only, or every attempt), throws at the task's third row, after the first two were
     * written (each its own finished shard in the attempt's staging folder).
     */
    static final class FailOnThirdRow implements UDF1<String, String> {
        @Override
        public String call(String path) throws IOException {
            TaskContext task = TaskContext.get();
            Path output = failingOutput;
            if (output != null && task.partitionId() == 1 && (failEveryAttempt || task.attemptNumber() == 0)
                && ROWS_PER_ATTEMPT.computeIfAbsent(task.taskAttemptId(), k -> new AtomicInteger()).incrementAndGet() == 3) {
                List<Path> staged;
                try (Stream<Path> files = Files.walk(output.resolve(Staging.FOLDER))) {
                    staged = files.filter(p -> p.getParent().getFileName().toString()
                        .matches("p00001-t\\d+-a" + task.attemptNumber())).toList();
                }
                stagedShardsAtFailure = (int) staged.stream().filter(p -> p.toString().endsWith(".pinshard")).count();
                unfinishedShardsAtFailure = (int) staged.stream().filter(p -> p.toString().endsWith(".pinshard.tmp")).count();
                INJECTED.incrementAndGet();
                throw new IllegalStateException("injected failure in partition 1, attempt " + task.attemptNumber());
            }
            return path;
        }
    }

    @Test
    void aTaskFailingPartWayIsRetriedWithoutDuplicates() throws IOException {
        Path output = temp.resolve("retried");
        INJECTED.set(0);
        failEveryAttempt = false;
        failingOutput = output;
        try {
            files(3).write().format("pinshard").mode("append").options(OPTIONS).option("root", input.toString())
                .save(output.toString());
        } finally {
            failingOutput = null;
        }
        assertEquals(1, INJECTED.get(), "the injected failure fired once, on the first attempt");
        // Two rows written: the first shard finished, the second one open (a shard ends when the next record comes).
        assertEquals(1, stagedShardsAtFailure, "the failed attempt had finished a shard when it failed");
        assertEquals(1, unfinishedShardsAtFailure, "and had one unfinished");
        assertEquals(List.of(), new DatasetVerifier().verify(output));
        assertEquals(clean, records(output), "every record once (records() fails on a key seen twice), as in a clean run");
        assertEquals(List.of(), SparkTestSupport.filesBelow(output.resolve(Staging.FOLDER)), "no staging left");
        assertTrue(SparkTestSupport.filesBelow(output).stream().noneMatch(p -> p.toString().endsWith(".tmp")), "no partial shard");
    }

    @Test
    void aJobThatFailsLeavesNoManifestAndNoStaging() throws Exception {
        Path output = temp.resolve("failed");
        failEveryAttempt = true;
        failingOutput = output;
        try {
            Exception e = assertThrows(Exception.class, () -> files(3).write().format("pinshard").mode("append")
                .options(OPTIONS).option("root", input.toString()).save(output.toString()));
            assertTrue(e instanceof SparkException || e.getCause() instanceof SparkException, e.toString());
        } finally {
            failingOutput = null;
            failEveryAttempt = false;
        }
        assertFalse(Files.exists(output.resolve(DatasetManifest.FILE_NAME)), "no manifest");
        assertEquals(List.of(), SparkTestSupport.filesBelow(output), "nothing left: no shard, no staging");
    }

    /**
     * A speculative duplicate, as Spark would run one: two attempts of partition 0 (task ids 100 and 101) write the
     * same rows and both commit their task (with the commit coordinator Spark would deny the second; here both
     * messages reach the driver), a failed attempt of partition 1 (task 102) aborts part-way, and attempt 103 of
     * partition 1 commits. The job commit takes one message per partition: no record twice, nothing staged left.
     */
    @Test
    void aSpeculativeDuplicateAttemptAddsNoRecord() throws Exception {
        SparkSession spark = SparkTestSupport.spark();
        Path output = temp.resolve("speculative");
        Dataset<Row> files = spark.read().format("binaryFile").option("recursiveFileLookup", "true").load(input.toString());
        StructType schema = files.schema();
        List<Row> rows = files.select("path", "content").collectAsList();
        Map<String, String> options = new HashMap<>(OPTIONS);
        options.put("path", output.toString());
        options.put("root", input.toString());
        SupportsWrite table = (SupportsWrite) new PinshardDataSource().getTable(schema, new Transform[0], options);
        LogicalWriteInfo info = new LogicalWriteInfo() {
            @Override
            public CaseInsensitiveStringMap options() {
                return new CaseInsensitiveStringMap(options);
            }

            @Override
            public String queryId() {
                return "speculation-test";
            }

            @Override
            public StructType schema() {
                return schema;
            }
        };
        BatchWrite job = table.newWriteBuilder(info).build().toBatch();
        DataWriterFactory factory = job.createBatchWriterFactory(() -> 2);
        List<InternalRow> first = new ArrayList<>();
        List<InternalRow> second = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            Object[] values = new Object[schema.size()];
            values[schema.fieldIndex("path")] = UTF8String.fromString(rows.get(i).getString(0));
            values[schema.fieldIndex("content")] = rows.get(i).get(1);
            (i % 2 == 0 ? first : second).add(new GenericInternalRow(values));
        }
        WriterCommitMessage original = writeAll(factory.createWriter(0, 100), first);
        WriterCommitMessage speculative = writeAll(factory.createWriter(0, 101), first);
        DataWriter<InternalRow> failed = factory.createWriter(1, 102);
        for (InternalRow row : second.subList(0, 3)) {
            failed.write(row);
        }
        failed.abort();
        failed.close();
        assertEquals(List.of(), SparkTestSupport.filesBelow(Staging.job(output.toString(), "speculation-test")
            .resolve(Staging.attemptFolder(1, 102, 0))), "an aborted attempt deletes its staging");
        WriterCommitMessage retry = writeAll(factory.createWriter(1, 103), second);
        assertTrue(SparkTestSupport.filesBelow(output).size() > 0, "staged shards before the job commit");
        job.commit(new WriterCommitMessage[] {original, retry, speculative});

        assertEquals(List.of(), new DatasetVerifier().verify(output));
        DatasetManifest manifest = Json.readManifest(output);
        assertEquals(clean.size(), manifest.records());
        assertEquals(clean, records(output), "every record once");
        assertFalse(Files.exists(output.resolve(Staging.FOLDER)), "the duplicate's staging went with the job's");
    }

    private static WriterCommitMessage writeAll(DataWriter<InternalRow> writer, List<InternalRow> rows) throws IOException {
        try (writer) {
            for (InternalRow row : rows) {
                writer.write(row);
            }
            return writer.commit();
        }
    }
}
