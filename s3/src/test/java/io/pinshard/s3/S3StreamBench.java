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
 * dataset, quasi-random order, against the same loader over the warm local copy; runs alternated, each a few
 * epochs, with the bytes fetched per epoch.
 *
 * <p>Arguments: jpegDataset workDir shards rounds epochs workers.
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
        Path local = reshard(source, work.resolve("jpeg-" + shards), shards);
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
        try (S3TestServer server = S3TestServer.start(); S3Client s3 = S3Clients.create(server.settings().build())) {
            S3Location location = S3TestData.upload(s3, local, "bench", "jpeg-" + shards);
            for (int round = 1; round <= rounds; round++) {
                double[] here = run(() -> Dataset.open(local), options, epochs, total, round, "local (warm)", rows);
                Path cache = work.resolve("cache-" + round);
                double[] remote = run(() -> Dataset.open(STREAMED[0] = S3ShardSource.open(location,
                    server.settings().build(), cache, limit)), options, epochs, total, round,
                    "s3, cold cache, limit " + limit, rows);
                System.out.printf(Locale.ROOT, "round %d: s3 / local = %.3f (all epochs), %.3f (first, cold)%n", round,
                    remote[0] / here[0], remote[1] / here[1]);
                deleteTree(cache);
                // No limit: the first epoch downloads, the later ones read the filled cache. Their rate against
                // local's later epochs is the streamed dataset's own cost (on-demand mapping, pins), without the
                // downloads that share this machine's cores with the decode workers.
                Path whole = work.resolve("cache-whole-" + round);
                double[] unlimited = run(() -> Dataset.open(STREAMED[0] = S3ShardSource.open(location,
                    server.settings().build(), whole, Long.MAX_VALUE)), options, epochs, total, round,
                    "s3, cache without limit", rows);
                System.out.printf(Locale.ROOT, "round %d: s3 with the cache filled / local, epochs after the first = %.3f%n",
                    round, unlimited[2] / here[2]);
                deleteTree(whole);
            }
        }
        System.out.println("| round | source | epoch | images/s | bytes fetched | of dataset |");
        System.out.println("|---:|---|---:|---:|---:|---:|");
        rows.forEach(System.out::println);
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

    /** CPU nanoseconds of every live thread, by thread id. */
    private static Map<Long, Long> threadCpu() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<Long, Long> cpu = new HashMap<>();
        for (long id : threads.getAllThreadIds()) {
            cpu.put(id, threads.getThreadCpuTime(id));
        }
        return cpu;
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
        return "cores busy: " + text;
    }

    /** The records of {@code from}, payloads copied as they are, into about {@code shards} shards. */
    static Path reshard(Path from, Path to, int shards) throws Exception {
        if (Files.exists(to.resolve("manifest.json"))) {
            return to;
        }
        deleteTree(to);
        try (Dataset dataset = Dataset.open(from)) {
            long target = dataset.manifest().bytes() / shards + 1;
            DatasetWriterOptions options = DatasetWriterOptions.defaults().withTargetShardBytes(target)
                .withClasses(dataset.classes());
            RecordView view = new RecordView();
            ByteBuffer scratch = ByteBuffer.allocateDirect((int) dataset.maxPayloadBytes(Codec.JPEG)
                + (int) dataset.maxPayloadBytes(Codec.RAW) + (int) dataset.maxPayloadBytes(Codec.LZ4) + 64);
            UnsafeBuffer buffer = new UnsafeBuffer(scratch);
            try (DatasetWriter writer = new DatasetWriter(to, options)) {
                for (long r = 0; r < dataset.size(); r++) {
                    dataset.record(r, view);
                    view.copyPayload(0, view.payloadLength(), buffer.addressOffset());
                    writer.appendPayload(view.codec(), buffer, 0, view.payloadLength(), view.height(), view.width(),
                        view.channels(), view.label(), view.key());
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
