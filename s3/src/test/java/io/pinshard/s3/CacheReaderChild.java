package io.pinshard.s3;

import io.pinshard.format.Crc32c;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import io.pinshard.testkit.S3TestServer;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * A child process of {@link SharedCacheKillTest}: reads a remote dataset through a shared cache directory for a
 * while, in a seeded random shard order (preferring shards not cached), checking every payload's CRC, evicting all but the last few shards it read (so the
 * processes keep deleting and downloading each other's shards). Prints "ok DOWNLOADS BYTES" and exits 0; exits 3
 * on a corrupt record, 1 on any other failure.
 *
 * <p>Arguments: endpoint bucket prefix cacheDir millis seed stopFile keep (it stops early once the stop file exists;
 * it keeps the last {@code keep} shards it read held, evicting older ones).
 */
public final class CacheReaderChild {
    private CacheReaderChild() {
    }

    public static void main(String[] args) {
        S3Settings settings = S3Settings.builder().endpoint(URI.create(args[0])).pathStyle(true).region("us-east-1")
            .credentials(S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY).build();
        long until = System.nanoTime() + Long.parseLong(args[4]) * 1_000_000L;
        SplittableRandom random = new SplittableRandom(Long.parseLong(args[5]));
        Path stop = Path.of(args[6]);
        int keep = Integer.parseInt(args[7]);
        java.util.ArrayDeque<Integer> kept = new java.util.ArrayDeque<>();
        try (S3ShardSource source = S3ShardSource.open(new S3Location(args[1], args[2]), settings, Path.of(args[3]),
                 Long.MAX_VALUE);
             Dataset dataset = Dataset.open(source)) {
            Crc32c crc = new Crc32c();
            RecordView view = new RecordView();
            do {
                int shard = random.nextInt(dataset.shardCount());
                for (int tries = 0; tries < 8 && Files.exists(source.cache().shardFile(
                         dataset.manifest().shards().get(shard))); tries++) {
                    shard = random.nextInt(dataset.shardCount()); // rather one that needs a download
                }
                dataset.shard(shard);
                for (long r = dataset.firstRecordOf(shard); r < dataset.firstRecordOf(shard + 1); r++) {
                    if (!dataset.record(r, view).payloadIntact(crc)) {
                        System.out.println("corrupt record " + r + " in " + view.shard().path());
                        System.exit(3);
                    }
                }
                // Keeps the last KEEP shards it read held; the older ones are deleted unless another process holds
                // them, so the others download them again.
                kept.remove((Integer) shard);
                kept.addLast(shard);
                while (kept.size() > keep) {
                    dataset.evict(kept.removeFirst());
                }
            } while (System.nanoTime() - until < 0 && !Files.exists(stop));
            System.out.println("ok " + source.downloads() + " " + source.bytesFetched());
        } catch (Throwable e) {
            e.printStackTrace(System.out);
            System.exit(1);
        }
        System.exit(0);
    }
}
