package io.pinshard.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.fixtures.ChildJvm;
import io.pinshard.format.Crc32c;
import io.pinshard.format.DatasetManifest;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.reader.RecordView;
import io.pinshard.testkit.FaultProxy;
import io.pinshard.testkit.S3TestServer;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Several processes share one cache directory while one of them is killed with SIGKILL again and again, often in
 * the middle of a download (the proxy throttles bodies so downloads last): the others carry on and finish, every
 * file in the cache verifies, the dead processes' part files are swept, and a new process reads everything
 * without waiting on any lock.
 */
@org.junit.jupiter.api.Tag("process")
class SharedCacheKillTest {
    private static final int KILLS = 5;

    @TempDir
    Path temp;

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void othersCarryOnAndTheCacheStaysConsistentWhileOneProcessIsKilledRepeatedly() throws Exception {
        try (S3TestServer server = S3TestServer.start(); FaultProxy proxy = new FaultProxy(server.endpoint());
             S3Client s3 = S3Clients.create(S3TestSettings.of(server).build())) {
            Path local = S3TestData.write(temp.resolve("local"), 160, 64 << 10);
            S3Location location = S3TestData.upload(s3, local, "shared", "kill");
            proxy.throttle(256 << 10); // ~0.3 s per shard: kills land inside downloads
            Path cache = temp.resolve("cache");
            List<Process> steady = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                // one keeps its last three shards (the cache always holds some), one keeps none
                steady.add(child(proxy, location, cache, 60_000, i, i == 0 ? 3 : 0, temp.resolve("steady-" + i + ".log")));
            }
            DatasetManifest manifest;
            try (Dataset here = Dataset.open(local)) {
                manifest = here.manifest();
            }
            int verified = 0;
            SplittableRandom random = new SplittableRandom(11);
            int midDownload = 0;
            for (int k = 0; k < KILLS; k++) {
                Process victim = child(proxy, location, cache, 60_000, 100 + k, 0, temp.resolve("victim-" + k + ".log"));
                // Kill it inside a download when it starts one within 10 s (else wherever it is then).
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!hasPartOf(cache, victim.pid()) && System.nanoTime() - deadline < 0) {
                    Thread.sleep(10);
                }
                Thread.sleep(random.nextInt(60));
                if (hasPartOf(cache, victim.pid())) {
                    midDownload++;
                }
                victim.destroyForcibly(); // SIGKILL: no shutdown hook, no unlock, no cleanup
                assertTrue(victim.waitFor(10, TimeUnit.SECONDS));
                verified += verifyCached(cache, manifest); // while the others go on reading and evicting
            }
            Files.createFile(stopFile(cache)); // the steady readers finish the shard in hand and exit
            for (int i = 0; i < steady.size(); i++) {
                Process process = steady.get(i);
                assertTrue(process.waitFor(60, TimeUnit.SECONDS), "steady reader " + i + " is stuck");
                String log = Files.readString(temp.resolve("steady-" + i + ".log"));
                assertEquals(0, process.exitValue(), "steady reader " + i + " failed:\n" + log);
                assertTrue(log.lines().anyMatch(line -> line.startsWith("ok ")), log);
            }
            System.out.println("kill test: " + KILLS + " SIGKILLs, " + midDownload + " with a download in progress");

            // Every file under a shard's name verifies; what the dead left in tmp goes at the next open.
            int cached = verifyCached(cache, manifest);
            assertTrue(verified > 0, "the checks after each kill found shards in the cache");
            try (Stream<Path> shardDirs = Files.list(cache.resolve("shards"))) {
                assertTrue(shardDirs.allMatch(d -> manifest.shards().stream()
                    .anyMatch(e -> e.crc32c().equals(d.getFileName().toString()))), "only the manifest's shards");
            }
            proxy.throttle(0);
            try (S3ShardSource source = S3ShardSource.open(location, S3TestSettings.of(server).endpoint(proxy.endpoint()).build(),
                     cache, Long.MAX_VALUE);
                 Dataset dataset = Dataset.open(source)) {
                try (Stream<Path> parts = Files.list(cache.resolve("tmp"))) {
                    assertEquals(List.of(), parts.toList(), "the dead processes' part files are swept at open");
                }
                Crc32c crc = new Crc32c();
                RecordView view = new RecordView();
                for (long r = 0; r < dataset.size(); r++) {
                    assertTrue(dataset.record(r, view).payloadIntact(crc), "record " + r);
                }
                System.out.println("kill test: " + verified + " cached shards verified after the kills, " + cached
                    + " at the end; a new process downloaded " + source.downloads());
            }
        }
    }

    /**
     * Verifies every shard file in the cache now (the readers may delete one meanwhile: a file gone before it is
     * opened is skipped, one deleted while mapped stays readable); returns how many it checked.
     */
    private static int verifyCached(Path cache, DatasetManifest manifest) {
        int checked = 0;
        for (int s = 0; s < manifest.shards().size(); s++) {
            DatasetManifest.ShardEntry entry = manifest.shards().get(s);
            Path file = cache.resolve("shards").resolve(entry.crc32c()).resolve(entry.file());
            List<io.pinshard.reader.Problem> problems = new DatasetVerifier(true, false).verifyShardFile(file, "cache",
                manifest, s);
            // Not there when checked (another reader may have fetched it again since), or evicted while being checked.
            boolean wasMissing = problems.size() == 1 && problems.get(0).detail().contains("but missing");
            if (!problems.isEmpty() && (wasMissing || !Files.exists(file))) {
                continue;
            }
            assertEquals(List.of(), problems, "cached " + entry.file());
            checked++;
        }
        return checked;
    }

    private static Path stopFile(Path cache) {
        return cache.resolveSibling("stop");
    }

    private static boolean hasPartOf(Path cache, long pid) throws Exception {
        Path tmp = cache.resolve("tmp");
        if (!Files.isDirectory(tmp)) {
            return false;
        }
        try (Stream<Path> parts = Files.list(tmp)) {
            return parts.anyMatch(p -> p.getFileName().toString().contains("." + pid + "."));
        }
    }

    private static Process child(FaultProxy proxy, S3Location location, Path cache, long millis, long seed, int keep,
                                 Path log) throws Exception {
        List<String> command = ChildJvm.command(ChildJvm.pinshardFlags(), CacheReaderChild.class,
            proxy.endpoint().toString(), location.bucket(), location.prefix(), cache.toString(), Long.toString(millis),
            Long.toString(seed), stopFile(cache).toString(), Integer.toString(keep));
        File out = log.toFile();
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out).start();
    }
}
