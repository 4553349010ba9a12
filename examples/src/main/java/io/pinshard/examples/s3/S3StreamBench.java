package io.pinshard.examples.s3;

import io.pinshard.loader.Epoch;
import io.pinshard.loader.Loader;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.SampleOrder;
import io.pinshard.loader.ring.Batch;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import io.pinshard.s3.S3Clients;
import io.pinshard.s3.S3Location;
import io.pinshard.s3.S3Settings;
import io.pinshard.s3.S3ShardSource;
import io.pinshard.s3.S3TestData;
import io.pinshard.s3.S3TestSettings;
import io.pinshard.testkit.S3TestServer;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.agrona.concurrent.UnsafeBuffer;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The streaming benchmark behind {@code scripts/bench-s3.sh} (not a test): the loader over a jpeg dataset streamed
 * from an S3 server on loopback (s3proxy) into a cold cache limited to a quarter of the dataset, quasi-random
 * order, against the same loader over the warm local copy.
 *
 * <p>The ratio comes from <b>pairs</b>: each pair opens the local dataset and a streamed one over a new, empty
 * cache directory and times each from {@code Loader.open} to the end of one epoch (the same epoch number for
 * both, a new one per pair), the order alternating from pair to pair. This machine's rate moves by 10-30 % over
 * seconds, so runs far apart in time (a few epochs of one source, then a few of the other) compared the drift as
 * much as the sources; pairs side by side, many of them, compare the sources. Then one streamed run of several
 * epochs under the limit gives the bytes fetched per epoch and the downloads per shard, and pairs of epochs over a
 * filled cache (no limit, nothing fetched) against local give the streamed read path's own cost. Each part prints
 * the cores each thread group kept busy, summed over its runs.
 *
 * <p>Arguments: jpegDataset workDir shards pairs epochs workers [repeat [endpoint]]: the dataset's records
 * {@code repeat} times (default 1) in {@code shards} shards; with {@code endpoint}, the store is the
 * {@link S3TestServer#main} already running there (in a JVM of its own) instead of one started in this JVM.
 * System property {@code bench.warmupEpochs} (default 4): streamed epochs run first and not reported, so that the
 * JIT has compiled the SDK's, the HTTP client's and the store's request paths (a few dozen requests a second here;
 * a training run of hours pays their compilation once). Shards should hold more records than the batches the ring
 * fills ahead ({@code (prefetch + 1) x batch}), as real shards of hundreds of MB do: those shards stay held past
 * the limit, and with 62-record shards they alone were more than a quarter of the dataset.
 */
public final class S3StreamBench {
    private S3StreamBench() {
    }

    public static void main(String[] args) throws Exception {
        Path source = Path.of(args[0]);
        Path work = Path.of(args[1]);
        int shards = Integer.parseInt(args[2]);
        int pairs = Integer.parseInt(args[3]);
        int epochs = Integer.parseInt(args[4]);
        int workers = Integer.parseInt(args[5]);
        int repeat = args.length > 6 ? Integer.parseInt(args[6]) : 1;
        int warmupEpochs = Integer.getInteger("bench.warmupEpochs", 4);
        Path local = reshard(source, work.resolve("jpeg-" + shards + "-x" + repeat), shards, repeat);
        long total;
        try (Dataset dataset = Dataset.open(local)) {
            total = dataset.manifest().bytes();
            System.out.printf(Locale.ROOT, "dataset %s: %d records, %d shards, %d bytes; %d worker(s)%n", local,
                dataset.size(), dataset.shardCount(), total, workers);
        }
        long limit = total / 4;
        // One window at a time, as every figure of docs/streaming.md was taken: a quarter of 17 shards holds four,
        // too few for the automatic interleave's group of windows (Loader.open would refuse it, naming this).
        LoaderOptions options = LoaderOptions.builder().batchSize(64).crop(224).workers(workers).seed(1)
            .order(SampleOrder.QUASI_RANDOM).quasiRandomInterleave(Integer.getInteger("bench.interleave", 1)).build();
        URI endpoint = args.length > 7 ? URI.create(args[7]) : null;
        try (S3TestServer server = endpoint == null ? S3TestServer.start() : null;
             S3Client s3 = S3Clients.create(settings(server, endpoint))) {
            S3Location location = S3TestData.upload(s3, local, "bench", "jpeg-" + shards);
            System.out.println("store: " + (server != null ? "s3proxy in this JVM, " + server.endpoint()
                : "s3proxy in its own JVM, " + endpoint));
            Opener localOpener = () -> Dataset.open(local);
            Cache cold = new Cache(work, location, settings(server, endpoint), limit);
            Cache whole = new Cache(work, location, settings(server, endpoint), Long.MAX_VALUE);

            // Warm-up, not reported: the JIT compiles the decode, crop and download paths first.
            run(localOpener, options, 2, total, "warm-up", new ArrayList<>(), new CpuTotal());
            run(cold.fresh(), options, warmupEpochs, total, "warm-up", new ArrayList<>(), new CpuTotal());

            coldPairs(localOpener, cold, options, pairs, total, limit);
            bytesPerEpoch(cold, options, epochs, total, limit);
            filledPairs(localOpener, whole, options, pairs, total);
        }
    }

    /** Pairs of cold streamed and local runs, each from Loader.open to the end of one epoch. */
    private static void coldPairs(Opener localOpener, Cache cold, LoaderOptions options, int pairs, long total,
                                  long limit) throws Exception {
        System.out.printf(Locale.ROOT, "%n## %d pairs: cold streamed (limit %d bytes, a new cache each) and local, "
            + "each from Loader.open to the end of one epoch%n%n", pairs, limit);
        System.out.println("| pair | first | local images/s | cold streamed images/s | streamed / local | "
            + "bytes fetched / dataset |");
        System.out.println("|---:|---|---:|---:|---:|---:|");
        double[] ratios = new double[pairs];
        CpuTotal localCpu = new CpuTotal();
        CpuTotal coldCpu = new CpuTotal();
        long[] localSum = new long[2];
        long[] coldSum = new long[2];
        List<Timed> coldRuns = new ArrayList<>();
        for (int pair = 0; pair < pairs; pair++) {
            boolean localFirst = pair % 2 == 0;
            Timed a = null;
            Timed b;
            if (localFirst) {
                a = once(localOpener, options, pair, localCpu);
            }
            b = once(cold.fresh(), options, pair, coldCpu);
            if (!localFirst) {
                a = once(localOpener, options, pair, localCpu);
            }
            ratios[pair] = b.rate() / a.rate();
            coldRuns.add(b);
            localSum[0] += a.images;
            localSum[1] += a.nanos;
            coldSum[0] += b.images;
            coldSum[1] += b.nanos;
            System.out.printf(Locale.ROOT, "| %d | %s | %.0f | %.0f | %.3f | %.2f |%n", pair + 1,
                localFirst ? "local" : "streamed", a.rate(), b.rate(), ratios[pair], (double) b.fetched / total);
        }
        double[] sorted = ratios.clone();
        java.util.Arrays.sort(sorted);
        double median = median(ratios);
        double pooled = ((double) coldSum[0] / coldSum[1]) / ((double) localSum[0] / localSum[1]);
        int atLeast = 0;
        for (double r : ratios) {
            atLeast += r >= 0.9 ? 1 : 0;
        }
        System.out.printf(Locale.ROOT, "%ncold streamed / local over %d pairs: median %.3f, pooled (all images "
            + "over all time) %.3f, range %.3f-%.3f, %d of %d pairs at 0.9 or more%n", pairs, median, pooled,
            sorted[0], sorted[pairs - 1], atLeast, pairs);
        System.out.println("cores busy, local runs: " + localCpu.format());
        System.out.println("cores busy, cold streamed runs: " + coldCpu.format());
        long fetchedBytes = 0;
        for (Timed t : coldRuns) {
            fetchedBytes += t.fetched;
        }
        // The sizing figure: what each GB fetched costs in CPU, on this machine, by thread group.
        System.out.printf(Locale.ROOT, "CPU per GB fetched: fetch threads %.2f core-seconds, planner %.2f, the "
                + "store's server threads %.2f (%d bytes fetched in the cold runs)%n",
            coldCpu.nanos("-fetch-") / 1e9 / (fetchedBytes / 1e9), coldCpu.nanos("prefetch") / 1e9 / (fetchedBytes / 1e9),
            coldCpu.nanos("Jetty") / 1e9 / (fetchedBytes / 1e9), fetchedBytes);

    }

    /** One streamed run of several epochs under the limit: bytes fetched per epoch, downloads per shard. */
    private static void bytesPerEpoch(Cache cold, LoaderOptions options, int epochs, long total, long limit)
        throws Exception {
        System.out.printf(Locale.ROOT, "%n## bytes fetched: one streamed run of %d epochs, limit %d bytes%n%n",
            epochs, limit);
        List<String> rows = new ArrayList<>();
        CpuTotal multi = new CpuTotal();
        run(cold.fresh(), options, epochs, total, "s3, cold cache, limit " + limit, rows, multi);
        S3ShardSource streamed = cold.last;
        System.out.println("| source | epoch | images/s | bytes fetched | of dataset |");
        System.out.println("|---|---:|---:|---:|---:|");
        rows.forEach(System.out::println);
        int most = 0;
        int least = Integer.MAX_VALUE;
        for (int s = 0; s < streamed.manifest().shards().size(); s++) {
            most = Math.max(most, streamed.downloads(s));
            least = Math.min(least, streamed.downloads(s));
        }
        // The prefetcher fetches the next epoch's first shards during the last one: at most one more each.
        System.out.printf(Locale.ROOT, "downloads per shard over %d epochs: %d..%d (%s)%n", epochs, least, most,
            most <= epochs + 1 ? "no shard fetched twice within an epoch" : "some shard fetched twice within an epoch");
        System.out.println("cores busy: " + multi.format());

    }

    /** Pairs of epochs over a filled cache (nothing fetched) and local: the method's own check. */
    private static void filledPairs(Opener localOpener, Cache whole, LoaderOptions options, int pairs, long total)
        throws Exception {
        System.out.printf(Locale.ROOT, "%n## %d pairs of epochs: the filled cache (no limit, nothing fetched after "
            + "its first epoch) and local, both loaders open%n%n", pairs);
        try (Dataset a = localOpener.open(); Dataset b = whole.fresh().open();
             Loader la = Loader.open(a, options); Loader lb = Loader.open(b, options)) {
            epoch(lb, 0); // fills the cache
            long[] sums = new long[4];
            double[] filled = new double[pairs];
            for (int pair = 0; pair < pairs; pair++) {
                boolean localFirst = pair % 2 == 0;
                long[] x = localFirst ? epoch(la, pair + 1) : null;
                long[] y = epoch(lb, pair + 1);
                if (!localFirst) {
                    x = epoch(la, pair + 1);
                }
                filled[pair] = ((double) y[0] / y[1]) / ((double) x[0] / x[1]);
                sums[0] += x[0];
                sums[1] += x[1];
                sums[2] += y[0];
                sums[3] += y[1];
            }
            double middle = median(filled);
            java.util.Arrays.sort(filled);
            System.out.printf(Locale.ROOT, "filled cache / local over %d pairs: median %.3f, pooled %.3f, range "
                + "%.3f-%.3f; bytes fetched after the first epoch: %d%n", pairs, middle,
                ((double) sums[2] / sums[3]) / ((double) sums[0] / sums[1]), filled[0], filled[pairs - 1],
                b.bytesFetched() - total);
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static S3Settings settings(S3TestServer server, URI endpoint) {
        return S3TestSettings.of(server != null ? server : S3TestServer.at(endpoint))
            .concurrentFetches(Integer.getInteger("bench.concurrentFetches",
                S3Settings.Builder.DEFAULT_CONCURRENT_FETCHES)).build();
    }

    private interface Opener {
        Dataset open();
    }

    /** Streamed datasets over new cache directories under {@code work}, each deleted when the next is made. */
    private static final class Cache {
        private final Path work;
        private final S3Location location;
        private final S3Settings settings;
        private final long limit;
        private Path current;
        private int made;
        /** The source the last dataset opened over (for its per-shard download counts). */
        S3ShardSource last;

        Cache(Path work, S3Location location, S3Settings settings, long limit) {
            this.work = work;
            this.location = location;
            this.settings = settings;
            this.limit = limit;
        }

        Opener fresh() throws Exception {
            if (current != null) {
                deleteTree(current);
            }
            Path directory = work.resolve("cache-" + (limit == Long.MAX_VALUE ? "whole-" : "") + made++);
            current = directory;
            return () -> Dataset.open(last = S3ShardSource.open(location, settings, directory, limit));
        }
    }

    /** One run's images, nanoseconds and bytes fetched. */
    private record Timed(long images, long nanos, long fetched) {
        double rate() {
            return images / (nanos / 1e9);
        }
    }

    /** Opens a dataset and a loader and runs epoch {@code e}, timed from the loader's open to the epoch's end. */
    private static Timed once(Opener opener, LoaderOptions options, int e, CpuTotal cpu) {
        try (Dataset dataset = opener.open()) {
            Map<Long, Long> before = threadCpu();
            long started = System.nanoTime();
            try (Loader loader = Loader.open(dataset, options)) {
                long images = epoch(loader, e)[0];
                long took = System.nanoTime() - started;
                cpu.add(before, took); // before the close: ThreadMXBean no longer sees threads that ended
                return new Timed(images, took, dataset.bytesFetched());
            }
        }
    }

    /** Runs epoch {@code e} to its end; returns {images, nanoseconds}. */
    private static long[] epoch(Loader loader, int e) {
        long started = System.nanoTime();
        long count = 0;
        try (Epoch epoch = loader.epoch(e)) {
            for (Batch batch : epoch) {
                try (batch) {
                    count += batch.size();
                }
            }
        }
        return new long[] {count, System.nanoTime() - started};
    }

    /** Runs {@code epochs} epochs of one loader, a row per epoch. */
    private static void run(Opener opener, LoaderOptions options, int epochs, long total, String what,
                                     List<String> rows, CpuTotal cpu) {
        Map<Long, Long> before = threadCpu();
        long nanos = 0;
        try (Dataset dataset = opener.open(); Loader loader = Loader.open(dataset, options)) {
            for (int e = 0; e < epochs; e++) {
                long fetchedBefore = dataset.bytesFetched();
                long[] done = epoch(loader, e);
                nanos += done[1];
                long fetched = dataset.bytesFetched() - fetchedBefore;
                rows.add(String.format(Locale.ROOT, "| %s | %d | %.0f | %d | %.2f |", what, e, done[0] / (done[1] / 1e9),
                    fetched, (double) fetched / total));
            }
            cpu.add(before, nanos);
            if (dataset.fetchConcurrency() > 0) { // fetched, not local: the run's total
                rows.add(String.format(Locale.ROOT, "| %s | all |  | %d | %.2f |", what, dataset.bytesFetched(),
                    (double) dataset.bytesFetched() / total));
            }
        }
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
     * Where the CPU went over some runs, as cores busy over their wall time: by thread group (the thread's name
     * without digits: loader workers, fetch threads, planner, the store's server threads), the whole JVM, the JIT's
     * compile time, GC pauses and the machine.
     */
    private static final class CpuTotal {
        private final Map<String, Long> byGroup = new TreeMap<>();
        private long wall;
        private long process;
        private long jit;
        private long gc;
        private long machine;
        private boolean proc = true;

        void add(Map<Long, Long> before, long wallNanos) {
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            Map<Long, Long> now = threadCpu();
            for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
                if (info == null) {
                    continue;
                }
                long spent = now.getOrDefault(info.getThreadId(), 0L) - before.getOrDefault(info.getThreadId(), 0L);
                if (spent > 0) {
                    byGroup.merge(info.getThreadName().replaceAll("[0-9]+", "N"), spent, Long::sum);
                }
            }
            wall += wallNanos;
            proc &= now.get(PROCESS) >= 0 && before.get(PROCESS) >= 0;
            process += now.get(PROCESS) - before.get(PROCESS);
            jit += now.get(JIT) - before.get(JIT);
            gc += now.get(GC) - before.get(GC);
            machine += now.get(MACHINE) - before.get(MACHINE);
        }

        /** CPU nanoseconds of the thread groups whose name contains {@code part}. */
        long nanos(String part) {
            return byGroup.entrySet().stream().filter(g -> g.getKey().contains(part)).mapToLong(Map.Entry::getValue).sum();
        }

        String format() {
            StringBuilder text = new StringBuilder();
            long java = 0;
            for (Map.Entry<String, Long> group : byGroup.entrySet()) {
                java += group.getValue();
                if (group.getValue() > wall / 200) {
                    text.append(text.length() > 0 ? ", " : "").append(String.format(Locale.ROOT, "%s %.2f",
                        group.getKey(), (double) group.getValue() / wall));
                }
            }
            if (proc) {
                // GC, JIT and other JVM threads, and Java threads that ended: ThreadMXBean sees none of them.
                text.append(String.format(Locale.ROOT, "; this JVM %.2f (of which not above: %.2f; JIT compiling %.2f, "
                        + "GC pauses %.2f, wall time over the runs); machine %.2f", (double) process / wall,
                    (double) Math.max(0, process - java) / wall, (double) jit / wall, (double) gc / wall,
                    (double) machine / wall));
            }
            return text.toString();
        }
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
            // maxPayloadBytes covers only the shards checked so far (none at open): grow with the records, or
            // copyPayload writes past the buffer.
            UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(1 << 20));
            try (DatasetWriter writer = new DatasetWriter(to, options)) {
                for (int copy = 0; copy < repeat; copy++) {
                    for (long r = 0; r < dataset.size(); r++) {
                        dataset.record(r, view);
                        if (view.payloadLength() > buffer.capacity()) {
                            buffer.wrap(ByteBuffer.allocateDirect(view.payloadLength()));
                        }
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
