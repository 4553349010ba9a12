package io.pinshard.s3;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.ThreadMXBean;
import io.pinshard.format.Codec;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.format.ManifestRules;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.reader.Problem;
import io.pinshard.testkit.S3TestServer;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.concurrent.UnsafeBuffer;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.http.crt.AwsCrtHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Benchmark (not a test) of issue 28: the CPU one GB of shard downloads costs the downloading process, for each
 * candidate HTTP client under the SDK, side by side in one JVM (rounds rotate the order), against a store in
 * another JVM (scripts/bench-s3-download.sh starts it). Each download is {@link ObjectDownload#to}, the cache's own
 * loop: body written to a new file as it arrives, CRC32C on the same pass, {@code fsync}. Per client it prints the
 * A client named {@code NAME-cache} instead runs the streamed cache's whole path over real shards of random raw
 * pixels ({@link S3ShardSource#acquire}: the download, the checks of every payload CRC32C and the structure, the
 * rename; then the release, which evicts); {@code checks} runs only those checks, over the local copy of the same
 * shards (in the page cache), with the whole-file CRC32C given as the download gives it. Per client it prints the
 * median over the measured rounds of: the process's CPU per GB (every thread: the fetch threads, GC, JIT, and the
 * CRT's native event loops, which ThreadMXBean does not see), the fetch threads' own CPU per GB, the heap the fetch
 * threads allocated per GB, and the rate.
 *
 * <p>Usage: DownloadCpuBench ENDPOINT WORKDIR [OBJECTS] [MIB] [ROUNDS] [WARMUP] [THREADS] [CLIENTS]
 */
public final class DownloadCpuBench {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final OperatingSystemMXBean OS =
        (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private DownloadCpuBench() {
    }

    record Round(double processCpuPerGb, double fetchCpuPerGb, double heapPerGb, double mbPerSecond) {
    }

    public static void main(String[] args) throws Exception {
        URI endpoint = URI.create(args[0]);
        Path work = Path.of(args[1]);
        int objects = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        int mib = args.length > 3 ? Integer.parseInt(args[3]) : 32;
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 6;
        int warmup = args.length > 5 ? Integer.parseInt(args[5]) : 2;
        int threads = args.length > 6 ? Integer.parseInt(args[6]) : 4;
        List<String> clients = List.of((args.length > 7 ? args[7] : "apache,urlconnection,crt").split(","));
        S3Settings base = S3Settings.builder().endpoint(endpoint).pathStyle(true).region("us-east-1")
            .credentials(S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY).build();
        String bucket = "download-bench";
        long bytes = (long) mib << 20;
        Path dataset = work.resolve("dataset");
        boolean shards = clients.stream().anyMatch(c -> c.endsWith("-cache") || c.equals("checks"));
        if (shards) { // ~32 KB records, about the jpeg photos' size
            writeDataset(dataset, objects, bytes);
        }
        try (S3Client setup = S3Clients.create(base)) {
            setup.createBucket(b -> b.bucket(bucket));
            byte[] body = new byte[(int) bytes];
            Random random = new Random(28);
            for (int i = 0; i < objects; i++) {
                random.nextBytes(body);
                String key = key(i);
                setup.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(body));
            }
            if (shards) {
                try (var files = Files.list(dataset)) {
                    for (Path f : files.toList()) {
                        setup.putObject(b -> b.bucket(bucket).key("set/" + f.getFileName()), f);
                    }
                }
            }
        }
        System.out.printf("%d objects of %d MiB, %d fetch threads, %d rounds after %d warm-up, clients %s%n",
            objects, mib, threads, rounds, warmup, clients);
        Map<String, S3Client> s3 = new LinkedHashMap<>();
        for (String name : clients) {
            if (!name.equals("checks")) {
                s3.put(name, S3Clients.create(withClient(base, name.replace("-cache", ""), threads)));
            }
        }
        Map<String, List<Round>> results = new LinkedHashMap<>();
        clients.forEach(c -> results.put(c, new ArrayList<>()));
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> new Thread(r, "bench-fetch"));
        try {
            for (int round = 0; round < warmup + rounds; round++) {
                for (int c = 0; c < clients.size(); c++) {
                    String name = clients.get((c + round) % clients.size());
                    Path dir = work.resolve(name + "-" + round);
                    Round r = name.equals("checks") ? checksRound(dataset, pool)
                        : name.endsWith("-cache")
                        ? cacheRound(withClient(base, name.replace("-cache", ""), threads), bucket, pool, dir)
                        : round(s3.get(name), bucket, objects, bytes, pool, dir);
                    if (round >= warmup) {
                        results.get(name).add(r);
                    }
                    System.out.printf("round %d %-14s process %.3f core-s/GB, fetch threads %.3f, heap %.0f B/GB, %.0f MB/s%n",
                        round, name, r.processCpuPerGb, r.fetchCpuPerGb, r.heapPerGb, r.mbPerSecond);
                }
            }
        } finally {
            pool.shutdown();
            s3.values().forEach(S3Client::close);
        }
        System.out.println();
        System.out.println("| client | process CPU, core-s per GB | fetch threads, core-s per GB | fetch threads' heap per GB | MB/s |");
        System.out.println("|---|---:|---:|---:|---:|");
        results.forEach((name, list) -> System.out.printf("| %s | %.3f | %.3f | %s | %.0f |%n", name,
            median(list.stream().mapToDouble(Round::processCpuPerGb).toArray()),
            median(list.stream().mapToDouble(Round::fetchCpuPerGb).toArray()),
            bytesText(median(list.stream().mapToDouble(Round::heapPerGb).toArray())),
            median(list.stream().mapToDouble(Round::mbPerSecond).toArray())));
    }

    private static S3Settings withClient(S3Settings base, String name, int threads) {
        SdkHttpClient.Builder<?> http = switch (name) {
            case "apache" -> ApacheHttpClient.builder();
            case "urlconnection" -> UrlConnectionHttpClient.builder();
            case "crt" -> AwsCrtHttpClient.builder().maxConcurrency(threads);
            default -> throw new IllegalArgumentException("unknown client " + name + " (apache, urlconnection, crt)");
        };
        return S3Settings.builder().endpoint(base.endpoint().orElseThrow()).pathStyle(true).region("us-east-1")
            .credentials(S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY).httpClient(http).build();
    }

    private static Round round(S3Client s3, String bucket, int objects, long bytes, ExecutorService pool, Path dir)
        throws Exception {
        Files.createDirectories(dir);
        ObjectDownload download = new ObjectDownload(s3, 3, java.time.Duration.ofMinutes(5));
        TimedTasks timed = new TimedTasks(pool);
        for (int i = 0; i < objects; i++) {
            String key = key(i);
            Path part = dir.resolve(key);
            timed.submit(() -> download.to(part, bucket, key, bytes, "s3://" + bucket + "/" + key,
                ObjectDownload.ResponseCheck.NONE, n -> { }));
        }
        timed.awaitAll();
        timed.stop();
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.delete(p);
            }
        }
        Files.delete(dir);
        return timed.round(objects * bytes);
    }

    /** {@code shards} shards of about {@code bytes} each, records of 104 x 104 x 3 random pixels. */
    private static void writeDataset(Path dir, int shards, long bytes) throws java.io.IOException {
        int side = 104;
        long perShard = bytes / (side * side * 3L);
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withClasses(List.of("a", "b"))
            .withTargetShardBytes(bytes);
        Random random = new Random(27);
        byte[] pixels = new byte[side * side * 3];
        try (DatasetWriter writer = new DatasetWriter(dir, options)) {
            for (long i = 0; i < perShard * shards; i++) {
                random.nextBytes(pixels);
                writer.appendPixels(new UnsafeBuffer(pixels), 0, side, side, 3, (int) (i % 2), "r" + i, Codec.RAW);
            }
            writer.finish();
        }
    }

    /** Every shard through the streamed cache: acquired (downloaded, checked, renamed) and released (evicted). */
    private static Round cacheRound(S3Settings settings, String bucket, ExecutorService pool, Path dir)
        throws Exception {
        TimedTasks timed = new TimedTasks(pool);
        long total;
        try (S3ShardSource source = S3ShardSource.open(S3Location.parse("s3://" + bucket + "/set"), settings, dir,
                Long.MAX_VALUE)) {
            int n = source.manifest().shards().size();
            for (int i = 0; i < n; i++) {
                int index = i;
                timed.submit(() -> {
                    source.acquire(index);
                    source.release(index);
                });
            }
            timed.awaitAll();
            total = source.bytesFetched();
        }
        timed.stop();
        S3TestData.deleteTree(dir);
        return timed.round(total);
    }

    /** The checks a downloaded shard gets before its rename, alone: every local shard, no download. */
    private static Round checksRound(Path dataset, ExecutorService pool) throws Exception {
        DatasetManifest manifest = Json.readManifest(dataset);
        int[] numbers = ManifestRules.expectedShardNumbers(manifest.shards());
        TimedTasks timed = new TimedTasks(pool);
        for (int i = 0; i < manifest.shards().size(); i++) {
            int index = i;
            DatasetManifest.ShardEntry entry = manifest.shards().get(i);
            int crc = (int) Long.parseLong(entry.crc32c(), 16);
            timed.submit(() -> {
                List<Problem> problems = DatasetVerifier.checksumsOnly().verifyDownloadedShard(
                    dataset.resolve(entry.file()), dataset.toString(), manifest, index, numbers[index], crc);
                if (!problems.isEmpty()) {
                    throw new IllegalStateException(problems.toString());
                }
            });
        }
        timed.awaitAll();
        timed.stop();
        return timed.round(manifest.bytes());
    }

    /** A unit of work of a round, run on a pool thread. */
    @FunctionalInterface
    private interface Task {
        void run() throws Exception;
    }

    /**
     * One round's tasks on the pool, each measured by its own thread's CPU and heap counters (summed), the whole by
     * the process's CPU and the wall time from this object's making to {@link #stop()}.
     */
    private static final class TimedTasks {
        private final ExecutorService pool;
        private final AtomicLong taskCpu = new AtomicLong();
        private final AtomicLong heap = new AtomicLong();
        private final List<Future<?>> done = new ArrayList<>();
        private final long cpu0 = OS.getProcessCpuTime();
        private final long t0 = System.nanoTime();
        private long wall;
        private long cpu;

        TimedTasks(ExecutorService pool) {
            this.pool = pool;
        }

        void submit(Task task) {
            done.add(pool.submit(() -> {
                long c = THREADS.getCurrentThreadCpuTime();
                long h = THREADS.getCurrentThreadAllocatedBytes();
                task.run();
                heap.addAndGet(THREADS.getCurrentThreadAllocatedBytes() - h);
                taskCpu.addAndGet(THREADS.getCurrentThreadCpuTime() - c);
                return null;
            }));
        }

        void awaitAll() throws Exception {
            for (Future<?> f : done) {
                f.get();
            }
        }

        void stop() {
            wall = System.nanoTime() - t0;
            cpu = OS.getProcessCpuTime() - cpu0;
        }

        Round round(long bytes) {
            double gb = bytes / 1e9;
            return new Round(cpu / 1e9 / gb, taskCpu.get() / 1e9 / gb, heap.get() / gb, bytes / 1e6 / (wall / 1e9));
        }
    }

    private static String key(int i) {
        return String.format("object-%03d", i);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n == 0 ? Double.NaN : n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String bytesText(double b) {
        return b >= 1 << 20 ? String.format("%.1f MB", b / 1e6) : b >= 1024 ? String.format("%.1f KB", b / 1e3)
            : String.format("%.0f B", b);
    }
}
