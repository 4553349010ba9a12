package io.pinshard.examples.s3;

import io.pinshard.fixtures.TestDatasets;
import io.pinshard.format.Json;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.s3.S3Clients;
import io.pinshard.s3.S3Location;
import io.pinshard.s3.S3TestSettings;
import io.pinshard.s3.transfer.DatasetPull;
import io.pinshard.s3.transfer.DatasetPush;
import io.pinshard.s3.transfer.PullOptions;
import io.pinshard.s3.transfer.PullResult;
import io.pinshard.s3.transfer.PushOptions;
import io.pinshard.s3.transfer.PushResult;
import io.pinshard.s3.transfer.TransferProgress;
import io.pinshard.testkit.S3TestServer;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Push and pull of a random raw dataset against the loopback test server, beside a local copy of the same files in
 * the same run (not a test: scripts/bench-push-pull.sh runs it). Prints MB/s of each and their ratios.
 * Arguments: total MiB, shard MiB, threads, work directory.
 */
public final class PushPullBench {
    private PushPullBench() {
    }

    public static void main(String[] args) throws Exception {
        long totalMib = Long.parseLong(args[0]);
        long shardMib = Long.parseLong(args[1]);
        int threads = Integer.parseInt(args[2]);
        Path work = Files.createDirectories(Path.of(args[3]));
        int side = 512;
        int images = (int) (totalMib * (1L << 20) / (side * side * 3L));
        Path local = TestDatasets.write(work.resolve("local"), images, side, shardMib << 20, 1);
        long bytes = Json.readManifest(local).bytes();
        int shards = Json.readManifest(local).shards().size();
        try (S3TestServer server = S3TestServer.start();
             S3Client s3 = S3Clients.create(S3TestSettings.of(server).build())) {
            s3.createBucket(b -> b.bucket("bench"));
            S3Location at = S3Location.parse("s3://bench/ds");
            long t0 = System.nanoTime();
            copy(local, work.resolve("copy"));
            long t1 = System.nanoTime();
            PushResult pushed = new DatasetPush(s3, PushOptions.defaults().withThreads(threads)
                .withCheck(PushOptions.LocalCheck.STRUCTURE), TransferProgress.NONE).push(local, at);
            long t2 = System.nanoTime();
            PullResult pulled = new DatasetPull(s3, PullOptions.defaults().withThreads(threads), TransferProgress.NONE)
                .pull(at, work.resolve("pulled"));
            long t3 = System.nanoTime();
            if (pushed.uploaded() != shards || pulled.downloaded() != shards
                || !DatasetVerifier.checksumsOnly().verify(work.resolve("pulled")).isEmpty()) {
                throw new IllegalStateException("round trip incomplete: " + pushed + " " + pulled);
            }
            double copy = bytes / 1e6 / ((t1 - t0) / 1e9);
            double push = bytes / 1e6 / ((t2 - t1) / 1e9);
            double pull = bytes / 1e6 / ((t3 - t2) / 1e9);
            System.out.printf(Locale.ROOT, "dataset: %d shards, %.1f MB; threads %d%n", shards, bytes / 1e6, threads);
            System.out.printf(Locale.ROOT, "local copy %.0f MB/s, push %.0f MB/s (%.2f x copy; parts of 16 MiB from "
                + "64 MiB up), pull %.0f MB/s (%.2f x copy; each shard verified, forced and renamed)%n", copy, push,
                push / copy, pull, pull / copy);
        }
    }

    private static void copy(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        List<Path> files = TestDatasets.files(from);
        for (Path file : files) {
            Files.copy(file, to.resolve(file.getFileName()));
            try (FileChannel channel = FileChannel.open(to.resolve(file.getFileName()), StandardOpenOption.WRITE)) {
                channel.force(true); // as pull forces each shard before its rename
            }
        }
    }
}
