package io.pinshard.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.memory.HeapCounter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What one task's writer puts on the JVM heap per image, by the thread's allocated-bytes counter: a path/length row
 * (the tasks read the file) less than a tenth of the file, where a binaryFile row with content (an UnsafeRow, as the
 * scan gives it) costs at least the file's size again ({@code getBinary}'s copy).
 */
class PinshardDataWriterHeapTest {
    @TempDir
    Path temp;

    @Test
    void pathRowsLeaveTheFilesBytesOffTheHeap() throws Exception {
        Path photos = SparkTestSupport.photos();
        List<Path> jpegs = SparkTestSupport.jpegs(4);
        assumeTrue(jpegs.size() == 4, "fewer than four photos");
        Path input = temp.resolve("input");
        long fileBytes = 0;
        for (Path jpeg : jpegs) {
            Path copy = input.resolve(photos.relativize(jpeg).toString()); // Theme/name: names repeat across themes
            Files.createDirectories(copy.getParent());
            Files.copy(jpeg, copy);
            fileBytes += Files.size(copy);
        }
        long perFile = fileBytes / jpegs.size();
        StructType paths = new StructType().add("path", DataTypes.StringType).add("length", DataTypes.LongType);
        StructType contents = new StructType().add("path", DataTypes.StringType).add("content", DataTypes.BinaryType);

        long pathBytes = allocatedPerImage(input, paths, false);
        long contentBytes = allocatedPerImage(input, contents, true);
        System.out.printf("spark writer heap per image (files of %,d bytes): path rows %,d bytes, content rows %,d bytes%n",
            perFile, pathBytes, contentBytes);
        assertTrue(pathBytes < perFile / 10, "path rows: " + pathBytes + " heap bytes per image of " + perFile);
        assertTrue(contentBytes >= perFile, "content rows: " + contentBytes + " heap bytes per image of " + perFile);
    }

    /** Heap bytes one write() allocates, averaged over the photos' second pass (the first warms every path up). */
    private long allocatedPerImage(Path input, StructType schema, boolean content) throws Exception {
        String root = "file:" + input;
        Path output = temp.resolve("out-" + schema.fieldNames()[1]);
        Map<String, String> options = Map.of("path", output.toString(), "root", root, "codec", "jpeg", "shorterSide", "128",
            "shardSize", "64MiB"); // a small payload: what is left is the path and the record's own
        WriteSettings settings = WriteSettings.resolve(options, schema, new Configuration());
        assertEquals(content ? WriteSettings.Layout.FILES : WriteSettings.Layout.PATHS, settings.layout);
        List<Path> files;
        try (Stream<Path> walk = Files.walk(input)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        UnsafeProjection toUnsafe = UnsafeProjection.create(schema);
        PinshardDataWriter writer = new PinshardDataWriter(settings, "heap-test", 0, 0, 0);
        try {
            long allocated = 0;
            for (int pass = 0; pass < 2; pass++) {
                for (Path file : files) {
                    Object second = content ? Files.readAllBytes(file) : (Object) Files.size(file);
                    InternalRow row = toUnsafe.apply(new GenericInternalRow(new Object[] {
                        UTF8String.fromString("file:" + file), second})).copy();
                    long before = HeapCounter.currentThreadAllocatedBytes();
                    writer.write(row);
                    allocated += pass == 1 ? HeapCounter.currentThreadAllocatedBytes() - before : 0;
                }
            }
            TaskCommit commit = (TaskCommit) writer.commit();
            assertEquals(List.of(), commit.rejected());
            return allocated / files.size();
        } finally {
            writer.abort();
        }
    }
}
