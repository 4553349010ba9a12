package io.pinshard.s3;

import io.pinshard.format.Codec;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import io.pinshard.reader.loader.Batch;
import io.pinshard.reader.loader.Epoch;
import io.pinshard.reader.loader.Loader;
import io.pinshard.reader.loader.LoaderOptions;
import io.pinshard.reader.loader.SampleOrder;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import org.agrona.concurrent.UnsafeBuffer;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The streaming benchmark behind {@code scripts/bench-s3.sh} (not a test): the loader over a jpeg dataset streamed
 * from an S3 server on loopback (s3proxy, started and stopped here) into a cold cache limited to a quarter of the
 * dataset, quasi-random order, against the same loader over the warm local copy (run before and after the
 * streamed runs of each round, the ratios taken against the mean of the two); runs alternated, each a few epochs,
 * with the bytes fetched per epoch and the cores each thread group kept busy.
 *
 * <p>Arguments: jpegDataset workDir shards rounds epochs workers [repeat [endpoint]]: the dataset's records
 * {@code repeat} times (default 1) in {@code shards} shards; with {@code endpoint}, the store is the
 * {@link S3TestServer#main} already running there (in a JVM of its own) instead of one started in this JVM. Shards should hold more records than the batches the ring fills
 * ahead ({@code (prefetch + 1) x batch}), as real shards of hundreds of MB do: those shards stay held past the
 * limit, and with 62-record shards they alone were more than a quarter of the dataset.
 */
public final class S3StreamBench {
    /** The source of the streamed run in progress (for its per-shard download counts). */
    private static final S3ShardSource[] STREAMED = new S3ShardSource[1];

    private S3StreamBench() {
    }

    public static void main(String[] args) throws Exception {
        Path source = Path.of(args[0]);
        Path work = Path.of(args[1]);
        int shards = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        int epochs = Integer.parseInt(args[4]);
        int workers = Integer.parseInt(args[5]);
        int repeat = args.length > 6 ? Integer.parseInt(args[6]) : 1;
        Path local = reshard(source, work.resolve("jpeg-" + shards + "-x" + repeat), shards, repeat);
        long total;
        try (Dataset dataset = Dataset.open(local)) {
            total = dataset.manifest().bytes();
            System.out.printf(Locale.ROOT, "dataset %s: %d records, %d shards, %d bytes%n", local, dataset.size(),
                dataset.shardCount(), total);
        }
        long limit = total / 4;
        LoaderOptions options = LoaderOptions.builder().batchSize(64).crop(224).workers(workers).seed(1)
            .order(SampleOrder.QUASI_RANDOM).build();
        List<String> rows = new ArrayList<>();
        double[] sums = new double[3];
        URI endpoint = args.length > 7 ? URI.create(args[7]) : null;
        try (S3TestServer server = endpoint == null ? S3TestServer.start() : null;
             S3Client s3 = S3Clients.create(settings(server, endpoint))) {
            S3Location location = S3TestData.upload(s3, local, "bench", "jpeg-" + shards);
            System.out.println("store: " + (server != null ? "s3proxy in this JVM, " + server.endpoint()
                : "s3proxy in its own JVM, " + endpoint));
            // Warm-up, not reported: the JIT compiles the decode, crop and download paths before round 1, which
            // would otherwise charge them to whichever source runs first.
            List<String> discarded = new ArrayList<>();
            run(() -> Dataset.open(local), options, 2, total, 0, "warm-up", discarded);
            Path warmCache = work.resolve("cache-warm-up");
            run(() -> Dataset.open(STREAMED[0] = S3ShardSource.open(location, settings(server, endpoint), warmCache,
                limit)), options, 1, total, 0, "warm-up", discarded);
            deleteTree(warmCache);
            for (int round = 1; round <= rounds; round++) {
                double[] here = run(() -> Dataset.open(local), options, epochs, total, round, "local (warm)", rows);
                Path cache = work.resolve("cache-" + round);
                double[] remote = run(() -> Dataset.open(STREAMED[0] = S3ShardSource.open(location,
                    settings(server, endpoint), cache, limit)), options, epochs, total, round,
                    "s3, cold cache, limit " + limit, rows);
                deleteTree(cache);
                // No limit: the first epoch downloads, the later ones read the filled cache. Their rate against
                // local's later epochs is the streamed dataset's own cost (on-demand mapping, pins), without the
                // downloads that share this machine's cores with the decode workers.
                Path whole = work.resolve("cache-whole-" + round);
                double[] unlimited = run(() -> Dataset.open(STREAMED[0] = S3ShardSource.open(location,
                    settings(server, endpoint), whole, Long.MAX_VALUE)), options, epochs, total, round,
                    "s3, cache without limit", rows);
                deleteTree(whole);
                // The local runs bracket the streamed ones: a round's first run measured ~5 % slower than the same
                // run repeated at its end, which would flatter whatever is compared with a lone first run.
                double[] again = run(() -> Dataset.open(local), options, epochs, total, round, "local again", rows);
                double[] baseline = new double[3];
                for (int k = 0; k < 3; k++) {
                    baseline[k] = (here[k] + again[k]) / 2;
                }
                System.out.printf(Locale.ROOT, "round %d: local again / local first = %.3f; s3 cold / local = %.3f (all "
                    + "epochs), %.3f (first epoch); s3 with the cache filled / local, epochs after the first = %.3f%n",
                    round, again[0] / here[0], remote[0] / baseline[0], remote[1] / baseline[1],
                    unlimited[2] / baseline[2]);
                sums[0] += remote[0] / baseline[0];
                sums[1] += remote[1] / baseline[1];
                sums[2] += unlimited[2] / baseline[2];
            }
        }
        System.out.printf(Locale.ROOT, "mean over %d rounds: cold s3 / local %.3f (all epochs), %.3f (first epoch); "
            + "filled cache / local %.3f%n", rounds, sums[0] / rounds, sums[1] / rounds, sums[2] / rounds);
        System.out.println("| round | source | epoch | images/s | bytes fetched | of dataset |");
        System.out.println("|---:|---|---:|---:|---:|---:|");
        rows.forEach(System.out::println);
    }

    private static S3Settings settings(S3TestServer server, URI endpoint) {
        return (server != null ? server.settings() : S3TestServer.settingsFor(endpoint)).build();
    }

    private interface Opener {
        Dataset open();
    }

    /** Runs {@code epochs} epochs; returns {images/s over all, of the first epoch, of the epochs after it}. */
    private static double[] run(Opener opener, LoaderOptions options, int epochs, long total, int round, String what,
                                List<String> rows) {
        long images = 0;
        long nanos = 0;
        Map<Long, Long> cpuBefore = threadCpu();
        double first = 0;
        long firstImages = 0;
        long firstNanos = 0;
        try (Dataset dataset = opener.open(); Loader loader = Loader.open(dataset, options)) {
            for (int e = 0; e < epochs; e++) {
                long fetchedBefore = dataset.bytesFetched();
                long started = System.nanoTime();
                long count = 0;
                try (Epoch epoch = loader.epoch(e)) {
                    for (Batch batch : epoch) {
                        try (batch) {
                            count += batch.size();
                        }
                    }
                }
                long took = System.nanoTime() - started;
                long fetched = dataset.bytesFetched() - fetchedBefore;
                double rate = count / (took / 1e9);
                if (e == 0) {
                    first = rate;
                    firstImages = count;
                    firstNanos = took;
                }
                images += count;
                nanos += took;
                rows.add(String.format(Locale.ROOT, "| %d | %s | %d | %.0f | %d | %.2f |", round, what, e, rate, fetched,
                    (double) fetched / total));
            }
            rows.add(String.format(Locale.ROOT, "| %d | %s | cpu | %s |  |  |", round, what, cpuSince(cpuBefore, nanos)));
            if (dataset.isStreamed()) {
                rows.add(String.format(Locale.ROOT, "| %d | %s | all | %.0f | %d | %.2f |", round, what,
                    images / (nanos / 1e9), dataset.bytesFetched(), (double) dataset.bytesFetched() / total));
                S3ShardSource streamed = STREAMED[0];
                int most = 0;
                int least = Integer.MAX_VALUE;
                for (int s = 0; s < dataset.shardCount(); s++) {
                    most = Math.max(most, streamed.downloads(s));
                    least = Math.min(least, streamed.downloads(s));
                }
                // The prefetcher fetches the next epoch's first shards during the last one: at most one more each.
                System.out.printf(Locale.ROOT, "round %d: downloads per shard over %d epochs: %d..%d (%s)%n", round,
                    epochs, least, most, most <= epochs + 1 ? "no shard fetched twice within an epoch"
                        : "some shard fetched twice within an epoch");
            }
        }
        double later = epochs > 1 ? (images - firstImages) / ((nanos - firstNanos) / 1e9) : first;
        return new double[] {images / (nanos / 1e9), first, later};
    }

    /** Keys of {@link #threadCpu} past the thread ids: this process's CPU and the machine's busy time, in ns. */
    private static final long PROCESS = -1;
    private static final long MACHINE = -2;
    private static final long JIT = -3;
    private static final long GC = -4;
    private static final long NANOS_PER_TICK = 10_000_000L; // USER_HZ = 100 on Linux

    /** CPU nanoseconds of every live thread, by thread id; the process's and the machine's under two more keys. */
    private static Map<Long, Long> threadCpu() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<Long, Long> cpu = new HashMap<>();
        for (long id : threads.getAllThreadIds()) {
            cpu.put(id, threads.getThreadCpuTime(id));
        }
        cpu.put(PROCESS, procTicks(Path.of("/proc/self/stat"), true) * NANOS_PER_TICK);
        cpu.put(MACHINE, procTicks(Path.of("/proc/stat"), false) * NANOS_PER_TICK);
        cpu.put(JIT, ManagementFactory.getCompilationMXBean().getTotalCompilationTime() * 1_000_000L);
        cpu.put(GC, ManagementFactory.getGarbageCollectorMXBeans().stream()
            .mapToLong(gc -> Math.max(0, gc.getCollectionTime())).sum() * 1_000_000L);
        return cpu;
    }

    /**
     * utime + stime of {@code /proc/self/stat} (every thread of this JVM, GC and JIT ones and the exited ones
     * included), or the busy ticks of the {@code cpu} line of {@code /proc/stat} (all but idle and iowait; steal
     * counts as busy); -1 where there is no /proc. Ticks are taken as 10 ms (USER_HZ 100, Linux's on x86).
     */
    private static long procTicks(Path file, boolean process) {
        try {
            String text = Files.readString(file);
            if (process) {
                String[] f = text.substring(text.lastIndexOf(')') + 2).split(" ");
                return Long.parseLong(f[11]) + Long.parseLong(f[12]);
            }
            String[] f = text.substring(0, text.indexOf('\n')).trim().split("\\s+");
            long busy = 0;
            for (int i = 1; i < f.length && i <= 8; i++) {
                busy += i == 4 || i == 5 ? 0 : Long.parseLong(f[i]);
            }
            return busy;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * Where the CPU went since {@code before}, as cores busy over the epochs' wall time, by thread group (the
     * thread's name without digits: loader workers, prefetcher, the store's server threads, the HTTP client).
     */
    private static String cpuSince(Map<Long, Long> before, long wallNanos) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<String, Long> byGroup = new TreeMap<>();
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info == null) {
                continue;
            }
            long now = threads.getThreadCpuTime(info.getThreadId());
            long spent = now - before.getOrDefault(info.getThreadId(), 0L);
            if (now > 0 && spent > wallNanos / 200) {
                byGroup.merge(info.getThreadName().replaceAll("[0-9]+", "N"), spent, Long::sum);
            }
        }
        StringBuilder text = new StringBuilder();
        byGroup.forEach((group, spent) -> text.append(text.length() > 0 ? ", " : "")
            .append(String.format(Locale.ROOT, "%s %.2f", group, (double) spent / wallNanos)));
        Map<Long, Long> now = threadCpu();
        if (now.get(PROCESS) >= 0 && before.get(PROCESS) >= 0) {
            long java = byGroup.values().stream().mapToLong(Long::longValue).sum();
            long process = now.get(PROCESS) - before.get(PROCESS);
            // GC, JIT and other JVM threads, and Java threads that ended: ThreadMXBean sees none of them.
            text.append(String.format(Locale.ROOT, "; this JVM %.2f (of which not above: %.2f; JIT compiling %.2f, GC "
                    + "pauses %.2f, wall time over the run); machine %.2f",
                (double) process / wallNanos, (double) Math.max(0, process - java) / wallNanos,
                (double) (now.get(JIT) - before.get(JIT)) / wallNanos, (double) (now.get(GC) - before.get(GC)) / wallNanos,
                (double) (now.get(MACHINE) - before.get(MACHINE)) / wallNanos));
        }
        return "cores busy: " + text;
    }

    /**
     * The records of {@code from}, payloads copied as they are, {@code repeat} times (keys suffixed {@code #N}
     * after the first), into about {@code shards} shards.
     */
    static Path reshard(Path from, Path to, int shards, int repeat) throws Exception {
        if (Files.exists(to.resolve("manifest.json"))) {
            return to;
        }
        deleteTree(to);
        try (Dataset dataset = Dataset.open(from)) {
            long target = dataset.manifest().bytes() * repeat / shards + 1;
            DatasetWriterOptions options = DatasetWriterOptions.defaults().withTargetShardBytes(target)
                .withClasses(dataset.classes());
            RecordView view = new RecordView();
            ByteBuffer scratch = ByteBuffer.allocateDirect((int) dataset.maxPayloadBytes(Codec.JPEG)
                + (int) dataset.maxPayloadBytes(Codec.RAW) + (int) dataset.maxPayloadBytes(Codec.LZ4) + 64);
            UnsafeBuffer buffer = new UnsafeBuffer(scratch);
            try (DatasetWriter writer = new DatasetWriter(to, options)) {
                for (int copy = 0; copy < repeat; copy++) {
                    for (long r = 0; r < dataset.size(); r++) {
                        dataset.record(r, view);
                        view.copyPayload(0, view.payloadLength(), buffer.addressOffset());
                        writer.appendPayload(view.codec(), buffer, 0, view.payloadLength(), view.height(),
                            view.width(), view.channels(), view.label(), copy == 0 ? view.key() : view.key() + "#" + copy);
                    }
                }
                writer.finish();
            }
        }
        return to;
    }

    private static void deleteTree(Path root) throws Exception {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
