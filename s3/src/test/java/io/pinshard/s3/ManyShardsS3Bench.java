package io.pinshard.s3;

import io.pinshard.format.Codec;
import io.pinshard.format.DatasetManifest;
import io.pinshard.loader.Epoch;
import io.pinshard.loader.Loader;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.SampleOrder;
import io.pinshard.loader.ring.Batch;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import io.pinshard.s3.transfer.DatasetPull;
import io.pinshard.s3.transfer.DatasetPush;
import io.pinshard.s3.transfer.PullOptions;
import io.pinshard.s3.transfer.PullResult;
import io.pinshard.s3.transfer.PushOptions;
import io.pinshard.s3.transfer.PushResult;
import io.pinshard.s3.transfer.TransferProgress;
import io.pinshard.testkit.S3TestServer;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.agrona.concurrent.UnsafeBuffer;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Benchmark (not a test) of issue 27: a dataset of SHARDS one-record shards (16 x 16 x 3 random raw pixels, written
 * by the real writer), pushed to a store in another JVM (scripts/bench-s3-many-shards.sh starts s3proxy), pushed
 * again (everything there), pulled into an empty directory, then opened streamed and read: the requests of each step counted by operation
 * ({@link RequestCounter}, every attempt), per shard, with the time. Prints a markdown table.
 *
 * <p>Usage: ManyShardsS3Bench ENDPOINT WORKDIR [SHARDS] [PUSH_THREADS]
 */
public final class ManyShardsS3Bench {
    private ManyShardsS3Bench() {
    }

    public static void main(String[] args) throws Exception {
        URI endpoint = URI.create(args[0]);
        Path work = Path.of(args[1]);
        int shards = args.length > 2 ? Integer.parseInt(args[2]) : 100_000;
        int threads = args.length > 3 ? Integer.parseInt(args[3]) : 16;
        RequestCounter counter = new RequestCounter();
        S3Settings settings = S3Settings.builder().endpoint(endpoint).pathStyle(true).region("us-east-1")
            .credentials(S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY).interceptor(counter).build();
        Path local = work.resolve("local");
        long t0 = System.nanoTime();
        write(local, shards);
        double writeSeconds = seconds(t0);
        long manifestBytes = Files.size(local.resolve(DatasetManifest.FILE_NAME));
        long datasetBytes;
        try (var files = Files.list(local)) {
            datasetBytes = files.mapToLong(f -> f.toFile().length()).sum();
        }
        System.out.printf("%d one-record shards written in %.1f s: %d bytes on disk (manifest %d)%n", shards,
            writeSeconds, datasetBytes, manifestBytes);
        S3Location location = S3Location.parse("s3://many/set");
        StringBuilder table = new StringBuilder("| step (" + shards + " shards) | seconds | requests by operation "
            + "| requests per shard |\n|---|---:|---|---:|\n");
        try (S3Client s3 = S3Clients.create(settings)) {
            s3.createBucket(b -> b.bucket("many"));
            counter.reset();
            for (String step : List.of("push (nothing there)", "push again (everything there)")) {
                long t = System.nanoTime();
                PushResult result = new DatasetPush(s3, PushOptions.defaults().withThreads(threads),
                    TransferProgress.NONE).push(local, location);
                row(table, step + ": " + result.uploaded() + " uploaded, " + result.skipped() + " skipped",
                    seconds(t), counter, shards);
            }
            long t = System.nanoTime();
            PullResult pulled = new DatasetPull(s3, PullOptions.defaults().withThreads(threads), TransferProgress.NONE)
                .pull(location, work.resolve("pulled"));
            row(table, "pull into an empty directory: " + pulled.downloaded() + " downloaded", seconds(t), counter,
                shards);
            S3TestData.deleteTree(work.resolve("pulled"));
        }
        long t = System.nanoTime();
        S3ShardSource source = S3ShardSource.open(location, settings, work.resolve("cache"), Long.MAX_VALUE);
        try (Dataset dataset = Dataset.open(source)) {
            row(table, "streamed open (S3ShardSource.open + Dataset.open)", seconds(t), counter, shards);
            t = System.nanoTime();
            RecordView record = dataset.record(shards / 2, new RecordView());
            if (record.payloadLength() <= 0) {
                throw new IllegalStateException("empty record");
            }
            row(table, "one record read (its shard fetched)", seconds(t), counter, shards);
            t = System.nanoTime();
            int batch = 64;
            try (Loader loader = Loader.open(dataset, LoaderOptions.builder().batchSize(batch).crop(16).workers(2)
                    .order(SampleOrder.SEQUENTIAL).build());
                 Epoch epoch = loader.epoch(0)) {
                try (Batch first = epoch.next()) {
                    row(table, "Loader.open to the first batch of " + first.size() + " (sequential)", seconds(t),
                        counter, shards);
                }
            }
        }
        System.out.println();
        System.out.print(table);
        System.out.printf("%nmanifest %,d bytes (%.0f per shard); dataset %,d bytes (%.0f per shard, %d-byte records)%n",
            manifestBytes, manifestBytes / (double) shards, datasetBytes, datasetBytes / (double) shards, 16 * 16 * 3);
    }

    private static void write(Path dir, int shards) throws java.io.IOException {
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withClasses(List.of("a", "b"))
            .withTargetShardBytes(128); // every record closes its shard
        Random random = new Random(27);
        byte[] pixels = new byte[16 * 16 * 3];
        try (DatasetWriter writer = new DatasetWriter(dir, options)) {
            for (int i = 0; i < shards; i++) {
                random.nextBytes(pixels);
                writer.appendPixels(new UnsafeBuffer(pixels), 0, 16, 16, 3, i % 2, "r" + i, Codec.RAW);
            }
            writer.finish();
        }
    }

    private static void row(StringBuilder table, String step, double seconds, RequestCounter counter, int shards) {
        Map<String, Long> counts = counter.snapshot();
        long total = counter.total();
        table.append(String.format("| %s | %.2f | %s | %.5f |%n", step, seconds, counts.isEmpty() ? "none" : counts,
            total / (double) shards));
        System.out.printf("%s: %.2f s, %s%n", step, seconds, counts);
        counter.reset();
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }
}
