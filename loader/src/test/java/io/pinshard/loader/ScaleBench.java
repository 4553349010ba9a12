package io.pinshard.loader;

import io.pinshard.format.Codec;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.SampleOrder;
import io.pinshard.loader.ring.Batch;
import io.pinshard.loader.sample.EpochPlan;
import io.pinshard.memory.HeapCounter;
import io.pinshard.reader.Dataset;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Benchmark (not a test) of issue 27, run by scripts/bench-scale.sh, one JVM per measurement so that RSS and
 * heap are this dataset's alone.
 * {@code ScaleBench write DIR RECORDS SHARDS}: writes RECORDS 8x8x3 raw records (192 payload bytes each, label
 * {@code i % 10}, key the decimal {@code i}) with the real writer into about SHARDS shards.
 * {@code ScaleBench measure DIR ORDER}: two lines (cold, warm: see {@link #measure}) of {@code key=value} figures:
 * Dataset.open, Loader.open and the first batch (ms; the heap figures' GCs are outside the timings), RSS
 * (anonymous and file pages) and heap after open and after the first batch (MB), shards and mapping limit; the warm
 * line also has each order's epoch plan figures ({@link #planFigures}).
 * {@code ScaleBench chart RESULTS PNG}: the chart of the warm lines in RESULTS ({@link ScaleChart}).
 */
public final class ScaleBench {
    private static final int SIDE = 8;
    private static final int CHANNELS = 3;

    private ScaleBench() {
    }

    public static void main(String[] args) throws IOException {
        switch (args.length > 0 ? args[0] : "") {
            case "write" -> write(Path.of(args[1]), Long.parseLong(args[2]), Integer.parseInt(args[3]));
            case "measure" -> measure(Path.of(args[1]), SampleOrder.valueOf(args[2].toUpperCase().replace('-', '_')));
            case "chart" -> ScaleChart.write(Path.of(args[1]), Path.of(args[2]));
            default -> {
                System.err.println("usage: ScaleBench write DIR RECORDS SHARDS | measure DIR ORDER | chart RESULTS PNG");
                System.exit(2);
            }
        }
    }

    static void write(Path dir, long records, int shards) throws IOException {
        byte[] pixels = new byte[SIDE * SIDE * CHANNELS];
        UnsafeBuffer view = new UnsafeBuffer(pixels);
        // Per record: 192 payload bytes (a multiple of the default 64-byte alignment), a 40-byte index entry and
        // the key; per shard: header and footer (64 bytes each) and the metadata (under 256 bytes here).
        long perShard = (records + shards - 1) / shards;
        DatasetWriterOptions options = DatasetWriterOptions.defaults()
            .withClasses(List.of("0", "1", "2", "3", "4", "5", "6", "7", "8", "9"))
            .withTargetShardBytes(128 + 256 + perShard * (192 + 40 + Long.toString(records).length()));
        long start = System.nanoTime();
        try (DatasetWriter writer = new DatasetWriter(dir, options)) {
            for (long i = 0; i < records; i++) {
                pixels[(int) (i % pixels.length)] = (byte) i;
                writer.appendPixels(view, 0, SIDE, SIDE, CHANNELS, (int) (i % 10), Long.toString(i), Codec.RAW);
            }
            writer.finish();
        }
        long bytes;
        try (var files = Files.list(dir)) {
            bytes = files.mapToLong(f -> f.toFile().length()).sum();
        }
        System.out.printf("wrote %,d records in %.1f s: %,d bytes on disk (%.1f per record)%n", records,
            (System.nanoTime() - start) / 1e9, bytes, bytes / (double) records);
    }

    /**
     * Opens, builds a loader and takes the first batch twice in this JVM: "cold" (what a new process pays: class
     * loading, JIT, native libraries) and "warm" (the same again: what the dataset's size itself costs).
     */
    static void measure(Path dir, SampleOrder order) {
        for (String run : new String[] {"cold", "warm"}) {
            long t0 = System.nanoTime();
            try (Dataset dataset = Dataset.open(dir)) {
                long t1 = System.nanoTime();
                double[] rssOpen = rssMb();
                double heapOpen = heapMb();
                LoaderOptions options = LoaderOptions.builder().batchSize(256).crop(SIDE).workers(2).order(order)
                    .seed(27).build();
                long t2 = System.nanoTime();
                try (Loader loader = Loader.open(dataset, options)) {
                    long t3 = System.nanoTime();
                    double heapLoader = heapMb();
                    long t4 = System.nanoTime();
                    try (Epoch epoch = loader.epoch(0); Batch batch = epoch.next()) {
                        long t5 = System.nanoTime();
                        double[] rssBatch = rssMb();
                        System.out.printf("run=%s records=%d shards=%d mappingLimit=%s order=%s datasetOpenMs=%.1f"
                                + " loaderOpenMs=%.1f firstBatchMs=%.1f toFirstBatchMs=%.1f rssAnonAfterOpenMb=%.1f"
                                + " rssFileAfterOpenMb=%.1f heapAfterOpenMb=%.1f heapAfterLoaderOpenMb=%.1f"
                                + " rssAnonAfterFirstBatchMb=%.1f batch=%d%s%n",
                            run, dataset.size(), dataset.shardCount(),
                            dataset.mappingLimit() == Integer.MAX_VALUE ? "none" : dataset.mappingLimit(),
                            order.name().toLowerCase(), (t1 - t0) / 1e6, (t3 - t2) / 1e6, (t5 - t4) / 1e6,
                            (t1 - t0 + t3 - t2 + t5 - t4) / 1e6, rssOpen[0], rssOpen[1], heapOpen, heapLoader,
                            rssBatch[0], batch.size(), run.equals("warm") ? planFigures(dataset, options) : "");
                    }
                }
            }
        }
    }

    /**
     * The epoch plan of each order on this dataset, rank 3 of 8 (batch 256): {@code plan<Order>Bytes}, the heap a
     * plan with both epoch buffers prepared allocates (its whole memory: it keeps what it allocates);
     * {@code plan<Order>PrepareMs}, preparing one epoch (the mean of 10, after 20 more); {@code plan<Order>LookupNs}, one position's
     * record, over up to 4 M consecutive positions as the workers read them (the last of at least 3 passes and
     * 16 M look-ups: the JIT has compiled the loop by then); and
     * {@code plan<Order>EpochCpuS}, what the plan costs per epoch over all ranks: the dataset's records times the
     * look-up, plus the prepare.
     */
    static String planFigures(Dataset dataset, LoaderOptions options) {
        long[] firstRecord = new long[dataset.shardCount() + 1];
        for (int s = 0; s <= dataset.shardCount(); s++) {
            firstRecord[s] = s < dataset.shardCount() ? dataset.firstRecordOf(s) : dataset.size();
        }
        StringBuilder figures = new StringBuilder();
        long sink = 0;
        for (SampleOrder order : SampleOrder.values()) {
            LoaderOptions planOptions = options.toBuilder().order(order).distributed(3, 8).build();
            long before = HeapCounter.currentThreadAllocatedBytes();
            EpochPlan plan = new EpochPlan(dataset.size(), firstRecord, planOptions.sampling());
            plan.prepare(0, 0);
            plan.prepare(1, 1);
            long bytes = HeapCounter.currentThreadAllocatedBytes() - before;
            for (int epoch = 2; epoch < 22; epoch++) { // warms the JIT up on the prepare loop
                plan.prepare(epoch & 1, epoch);
            }
            long t0 = System.nanoTime();
            for (int epoch = 22; epoch < 32; epoch++) {
                plan.prepare(epoch & 1, epoch);
            }
            double prepareMs = (System.nanoTime() - t0) / 10 / 1e6;
            long positions = Math.min(plan.samplesPerRank(), 4_000_000);
            double lookupNs = 0;
            for (long pass = 0, passes = Math.max(3, 16_000_000 / positions); pass < passes; pass++) {
                long t1 = System.nanoTime();
                for (long p = 0; p < positions; p++) {
                    sink += plan.recordAt(0, p);
                }
                lookupNs = (System.nanoTime() - t1) / (double) positions;
            }
            String name = order.name().charAt(0) + order.name().substring(1).toLowerCase(Locale.ROOT).replace("_r", "R");
            figures.append(String.format(Locale.ROOT, " plan%sBytes=%d plan%sPrepareMs=%.3f plan%sLookupNs=%.1f"
                    + " plan%sEpochCpuS=%.3f", name, bytes, name, prepareMs, name, lookupNs, name,
                dataset.size() * lookupNs / 1e9 + prepareMs / 1e3));
        }
        return figures.append(" planSink=").append(sink & 1).toString();
    }

    /** Heap in use after a full collection: what the open left reachable. */
    private static double heapMb() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1e6;
    }

    /** RssAnon and RssFile of this process (MB): the process's own memory, and mapped file pages resident. */
    private static double[] rssMb() {
        double[] rss = {-1, -1};
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("RssAnon:")) {
                    rss[0] = Long.parseLong(line.replaceAll("\\D", "")) / 1e3;
                } else if (line.startsWith("RssFile:")) {
                    rss[1] = Long.parseLong(line.replaceAll("\\D", "")) / 1e3;
                }
            }
        } catch (IOException e) {
            return rss;
        }
        return rss;
    }
}
