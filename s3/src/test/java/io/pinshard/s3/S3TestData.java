package io.pinshard.s3;

import io.pinshard.format.Codec;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/** Small raw datasets for the s3 tests, and their upload to a test server (shards first, manifest last). */
public final class S3TestData {
    private S3TestData() {
    }

    /** {@code records} raw images of varied sizes, shards rolled at about {@code shardBytes}. */
    public static Path write(Path directory, int records, long shardBytes) throws IOException {
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withTargetShardBytes(shardBytes)
            .withClasses(List.of("a", "b", "c"));
        try (DatasetWriter writer = new DatasetWriter(directory, options)) {
            for (int r = 0; r < records; r++) {
                int height = 24 + (r * 7) % 17;
                int width = 20 + (r * 11) % 23;
                ByteBuffer pixels = ByteBuffer.allocateDirect(height * width * 3);
                for (int i = 0; i < pixels.capacity(); i++) {
                    pixels.put(i, (byte) (i * 31 + r * 17));
                }
                writer.appendPixels(new UnsafeBuffer(pixels), 0, height, width, 3, r % 3, "img/" + r, Codec.RAW);
            }
            writer.finish();
        }
        return directory;
    }

    /** Puts every file of {@code directory} under {@code s3://bucket/prefix/}, the manifest last; makes the bucket. */
    public static S3Location upload(S3Client s3, Path directory, String bucket, String prefix) throws IOException {
        try {
            s3.createBucket(b -> b.bucket(bucket));
        } catch (software.amazon.awssdk.services.s3.model.S3Exception exists) {
            // BucketAlreadyOwnedByYou: several datasets share one bucket
        }
        S3Location location = new S3Location(bucket, prefix);
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> listing = Files.newDirectoryStream(directory)) {
            listing.forEach(files::add);
        }
        files.sort((a, b) -> a.getFileName().toString().equals("manifest.json") ? 1
            : b.getFileName().toString().equals("manifest.json") ? -1 : a.compareTo(b));
        for (Path file : files) {
            s3.putObject(p -> p.bucket(bucket).key(location.key(file.getFileName().toString())), RequestBody.fromFile(file));
        }
        return location;
    }

    /** Bytes of the files under {@code directory}, recursively; files deleted while it looks count as gone. */
    public static long bytesUnder(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return 0;
        }
        long[] sum = new long[1];
        Files.walkFileTree(directory, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                sum[0] += attributes.size();
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                return FileVisitResult.CONTINUE;
            }
        });
        return sum[0];
    }

    /** Deletes {@code directory} and everything under it (the benchmarks' clean-up). */
    public static void deleteTree(Path directory) throws IOException {
        try (var paths = Files.walk(directory)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
