package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.loader.Loader;
import io.pinshard.loader.Epoch;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.ring.Batch;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import io.pinshard.s3.S3Clients;
import io.pinshard.s3.S3DatasetProvider;
import io.pinshard.s3.S3Location;
import io.pinshard.s3.S3Settings;
import io.pinshard.s3.S3TestData;
import io.pinshard.s3.S3TestSettings;
import io.pinshard.serve.RingServer;
import io.pinshard.testkit.S3ServerExtension;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Opening and closing, 1,000 times each, a dataset, a loader (one whole epoch), a served ring (the ring server the
 * {@code serve} command runs) and an S3-streamed dataset (one record read through the shard cache) leaves nothing
 * behind: the figures after 1,000 rounds match those after a warm-up of 100 (issue 37). File descriptors may grow
 * by {@link #FD_SLACK} (each round opens several: one left open per round is 900 more, one every hundred rounds 9;
 * seen on a loaded CI machine: +1 in the S3 rounds' first half, none in the second). Memory mappings may grow by
 * {@link #MAPPING_SLACK}, resident memory outside the Java heap by {@link #RSS_SLACK} and the heap in use after a
 * full collection by {@link #HEAP_SLACK}: what the JVM and the C library settle into on their own as threads come and
 * go (malloc arenas, metaspace, code cache; seen: at most +4 mappings and +6 MiB outside the heap on 2026-12-04), far
 * below what one leak per round adds over 900 rounds: 900 mappings for a shard or ring left mapped, 390 MiB for a
 * loader's ring of 2 x 221-kB slots left allocated. The Java heap's address range is left out of the RSS figure (the
 * resident bytes of every mapping outside the range {@code GC.heap_info} names): the collector commits, touches and
 * shrinks it at will (+146 MiB of RSS over the S3 rounds, all of it heap, in a JVM that ran other tests before; RSS
 * less the committed heap grew 53 MiB on CI as the collector touched more of a committed heap); what the heap retains
 * is judged by its use after a collection instead. A leak grows RSS round after round, settling does not: the RSS
 * figure is judged on the second half of the rounds only, so the JIT's and malloc's settling while the first half
 * runs (C2's arenas on a 2-core machine, the S3 client's pools) does not count.
 */
@Tag("process") // an S3 server on loopback
class OpenCloseLeakTest {
    static final int WARMUP = 100;
    static final int ROUNDS = 1_000;
    /**
     * RSS outside the Java heap may grow this much over the second half of the rounds: malloc's and the JIT's late
     * settling. A loader ring leaked per round adds 195 MiB there.
     */
    static final long RSS_SLACK = 32L << 20;
    /** The heap in use after a full collection may grow this much: caches the JDK and libraries fill once. */
    static final long HEAP_SLACK = 16L << 20;
    /**
     * Descriptors may grow this much: a descriptor something opens once, late (a lazily opened file, a pooled
     * connection). The S3 rounds gained one between rounds 100 and 550 on a loaded machine, then none.
     */
    static final long FD_SLACK = 2;
    /** Mappings may grow this much: malloc arenas (one or two mappings each) and metaspace chunks made late. */
    static final long MAPPING_SLACK = 16;

    @RegisterExtension
    static final S3ServerExtension S3 = new S3ServerExtension();

    @TempDir
    static Path tmp;
    static Path local;

    @BeforeAll
    static void dataset() throws IOException {
        local = tmp.resolve("local");
        CommandTestSupport.writeDataset(local, 16); // two shards: small, so a round costs little
        try (S3Client s3 = S3Clients.create(S3TestSettings.of(S3).build())) {
            S3TestData.upload(s3, local, "leaks", "set");
        }
    }

    static LoaderOptions loaderOptions() {
        // Crop 96 of the 8 x 6 images: slots of 8 x 96 x 96 x 3 = 221 kB, so a leaked ring is plain in RSS.
        return LoaderOptions.builder().batchSize(8).crop(96).workers(1).prefetch(2).seed(1)
            .dataWaitWarning(1e9, 50).build();
    }

    @Test
    void aDatasetOpenedAndClosedLeavesNothing() throws Exception {
        RecordView view = new RecordView();
        assertNoGrowth("dataset", () -> {
            try (Dataset dataset = Dataset.open(local)) {
                dataset.record(dataset.size() - 1, view);
            }
        });
    }

    @Test
    void aLoaderOpenedForAnEpochAndClosedLeavesNothing() throws Exception {
        try (Dataset dataset = Dataset.open(local)) {
            assertNoGrowth("loader", () -> {
                try (Loader loader = Loader.open(dataset, loaderOptions()); Epoch epoch = loader.epoch(0)) {
                    int batches = 0;
                    for (Batch batch : epoch) {
                        try (batch) {
                            batches++;
                        }
                    }
                    assertEquals(2, batches);
                }
            });
        }
    }

    @Test
    void aServedRingStartedAndClosedLeavesNothing() throws Exception {
        Path ring = tmp.resolve("leak.ring");
        try (Dataset dataset = Dataset.open(local)) {
            assertNoGrowth("served ring", () -> {
                try (RingServer server = RingServer.start(dataset, loaderOptions(), ring, RingServer.Settings.defaults(),
                        event -> { })) {
                    // Before RingReaper said "done", a stopped server's reaper removed this ring now and then (its
                    // freed inode number reused by this round's file): the 7th round found no ring.
                    assertTrue(Files.exists(server.ringPath()), "the ring a started server serves is there");
                }
                assertTrue(!Files.exists(ring), "close unlinks the ring");
            });
        }
    }

    @Test
    void anS3StreamedDatasetOpenedAndClosedLeavesNothing() throws Exception {
        S3Settings settings = S3TestSettings.of(S3).build();
        S3Location location = S3Location.parse("s3://leaks/set");
        Path cache = tmp.resolve("cache");
        RecordView view = new RecordView();
        // Resident memory outside the heap grew 13 to 71 MiB over 900 rounds in four runs when it was figured as RSS
        // less the committed heap; counted outside the heap's address range it grows 17-20 MiB over the first 450
        // rounds after the warm-up and -0.3 to +2.2 MiB over the last 450 (2026-12-04, three runs): the S3 client's
        // and malloc's settling, not a leak per round. Judged like the others on the second half. Looked into with the
        // heap pre-touched (-Xms1g -XX:+AlwaysPreTouch), the C heap trimmed before each figure and
        // -XX:NativeMemoryTracking=summary: -0.5 MiB over 900 rounds, +5.4 MiB over 2,900, all of it the code cache
        // and metaspace; MALLOC_ARENA_MAX=1 or 2 changed nothing; threads flat at 18, each round's S3 client closed.
        assertNoGrowth("S3-streamed dataset", () -> {
            try (Dataset dataset = Dataset.open(S3DatasetProvider.source(location, settings, cache, Long.MAX_VALUE))) {
                dataset.record(0, view);
            }
        });
    }

    interface Round {
        void run() throws Exception;
    }

    /**
     * Runs {@code round} WARMUP times, takes the figures, runs it halfway to ROUNDS and to ROUNDS, taking them each
     * time, and compares: fds, mappings and the heap from the warm-up to the end, resident memory outside the heap
     * over the second half.
     */
    static void assertNoGrowth(String what, Round round) throws Exception {
        for (int i = 0; i < WARMUP; i++) {
            round.run();
        }
        Figures warm = Figures.now();
        int half = (WARMUP + ROUNDS) / 2;
        for (int i = WARMUP; i < half; i++) {
            round.run();
        }
        Figures middle = Figures.now();
        for (int i = half; i < ROUNDS; i++) {
            round.run();
        }
        Figures end = Figures.now();
        String report = String.format(Locale.ROOT, "%s after %d rounds: %s; after %d: %s; after %d: %s", what, WARMUP,
            warm, half, middle, ROUNDS, end);
        System.out.println(report);
        assertTrue(end.fds() - warm.fds() <= FD_SLACK, "file descriptors grew by more than " + FD_SLACK + ": "
            + report);
        assertTrue(end.mappings() - warm.mappings() <= MAPPING_SLACK, "memory mappings grew by more than "
            + MAPPING_SLACK + ": " + report);
        assertTrue(end.nativeRss() - middle.nativeRss() <= RSS_SLACK, "resident memory outside the heap grew"
            + " by more than " + (RSS_SLACK >> 20) + " MiB over the last " + (ROUNDS - half) + " rounds: " + report);
        assertTrue(end.heapUsed() - warm.heapUsed() <= HEAP_SLACK, "the heap retained more than "
            + (HEAP_SLACK >> 20) + " MiB more: " + report);
    }

    /**
     * This process's open file descriptors, memory mappings, resident bytes outside the Java heap's address range and
     * heap bytes in use after a full collection.
     */
    record Figures(long fds, long mappings, long nativeRss, long heapUsed) {
        /** The heap's range in {@code GC.heap_info}'s first line: {@code [0x0000000687400000, 0x0000000800000000)}. */
        static final Pattern HEAP_RANGE = Pattern.compile("\\[0x(\\p{XDigit}+), 0x(\\p{XDigit}+)\\)");
        /** A mapping's first line in /proc/self/smaps: {@code 7f2c1a000000-7f2c1a021000 rw-p ...}. */
        static final Pattern MAPPING = Pattern.compile("^(\\p{XDigit}+)-(\\p{XDigit}+) .*");

        static Figures now() throws Exception {
            System.gc(); // what only a collection frees (direct buffers, closed channels' cleaners) is not a leak
            long heapUsed = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            long fds;
            try (var list = Files.list(Path.of("/proc/self/fd"))) {
                fds = list.count();
            }
            long[] heap = heapRange();
            long mappings = 0;
            long rssOutsideHeap = 0;
            boolean inHeap = false;
            for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
                Matcher mapping = MAPPING.matcher(line);
                if (mapping.matches()) {
                    mappings++;
                    long start = Long.parseUnsignedLong(mapping.group(1), 16);
                    long end = Long.parseUnsignedLong(mapping.group(2), 16);
                    inHeap = start >= heap[0] && end <= heap[1];
                } else if (line.startsWith("Rss:") && !inHeap) {
                    rssOutsideHeap += Long.parseLong(line.replaceAll("\\D", "")) * 1024;
                }
            }
            return new Figures(fds, mappings, rssOutsideHeap, heapUsed);
        }

        /** The Java heap's reserved address range, start inclusive and end exclusive, from {@code GC.heap_info}. */
        static long[] heapRange() throws Exception {
            String info = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcHeapInfo", new Object[] {null},
                new String[] {String[].class.getName()});
            Matcher range = HEAP_RANGE.matcher(info);
            assertTrue(range.find(), "GC.heap_info names the heap's address range: " + info);
            return new long[] {Long.parseUnsignedLong(range.group(1), 16), Long.parseUnsignedLong(range.group(2), 16)};
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%d fds, %d mappings, RSS outside the heap %.1f MiB, heap in use %.1f MiB",
                fds, mappings, nativeRss / 1048576.0, heapUsed / 1048576.0);
        }
    }
}
