package io.pinshard.s3;

import com.sun.management.ThreadMXBean;
import io.pinshard.format.Codec;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.format.ManifestRules;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Benchmark (not a test) of what the S3 cache's checks cost (docs/streaming.md, "What is checked when"): the core
 * time, on one thread, per GB of shards already in the page cache (a read from disk adds its own I/O on top). It
 * writes SHARDS shards of 16 MiB of random raw pixels into WORKDIR and measures, each ROUNDS times (median):
 * <ul>
 *   <li>{@code crc32c pass}: {@link CRC32C} (intrinsified) over each mapped file, what a whole-file check costs;</li>
 *   <li>{@code install}: {@link ShardCache#hold} into an empty cache, each download a copy of the local file with
 *       its CRC32C on the same pass (what {@link ObjectDownload} does with a body), then every check of {@link
 *       DatasetVerifier#verifyDownloadedShard}, the install record and the rename;</li>
 *   <li>{@code reuse}: {@link ShardCache#hold} of the installed shards (size, mtime, inode, header and footer
 *       CRCs);</li>
 *   <li>{@code verify --no-decode}: {@link DatasetVerifier#verifyShardFile}, the checks a cached copy gets from
 *       {@code verify s3://}.</li>
 * </ul>
 * <p>Usage: CacheCheckBench WORKDIR [SHARDS] [ROUNDS]   (defaults 64 = 1 GiB, 5)
 */
public final class CacheCheckBench {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final long SHARD_BYTES = 16L << 20;

    private CacheCheckBench() {
    }

    public static void main(String[] args) throws Exception {
        Path work = Path.of(args[0]);
        int shards = args.length > 1 ? Integer.parseInt(args[1]) : 64;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        Path dataset = work.resolve("dataset");
        if (!Files.exists(dataset.resolve(DatasetManifest.FILE_NAME))) {
            write(dataset, shards);
        }
        DatasetManifest manifest = Json.readManifest(dataset);
        int[] numbers = ManifestRules.expectedShardNumbers(manifest.shards());
        long bytes = manifest.bytes();
        List<Path> files = new ArrayList<>();
        for (DatasetManifest.ShardEntry entry : manifest.shards()) {
            files.add(dataset.resolve(entry.file()));
        }
        System.out.printf("%d shards, %.2f GB, %d rounds, one thread, files in the page cache%n",
            files.size(), bytes / 1e9, rounds);
        crcPass(files); // warm: page cache and JIT
        List<double[]> results = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            double crc = perGb(bytes, () -> crcPass(files));
            Path cacheRoot = work.resolve("cache-" + round);
            double[] cacheFigures = new double[2];
            try (ShardCache cache = ShardCache.open(cacheRoot)) {
                cacheFigures[0] = perGb(bytes, () -> holdAll(cache, manifest, numbers, dataset, true));
                cacheFigures[1] = perGb(bytes, () -> holdAll(cache, manifest, numbers, dataset, false));
            }
            double verify = perGb(bytes, () -> {
                for (int i = 0; i < files.size(); i++) {
                    if (!DatasetVerifier.checksumsOnly().verifyShardFile(files.get(i), "bench", manifest, i,
                        numbers[i]).isEmpty()) {
                        throw new IllegalStateException("shard " + i + " fails its checks");
                    }
                }
            });
            S3TestData.deleteTree(cacheRoot);
            results.add(new double[] {crc, cacheFigures[0], cacheFigures[1], verify});
            System.out.printf("round %d: crc32c pass %.3f, install %.3f, reuse %.5f, verify --no-decode %.3f "
                + "core-s/GB%n", round + 1, crc, cacheFigures[0], cacheFigures[1], verify);
        }
        String[] names = {"crc32c pass (whole file)", "install (copy + CRC32C + every check + rename)",
            "reuse (size, mtime, inode, header and footer CRCs)", "verify --no-decode of a cached copy"};
        System.out.println("| check | core-seconds per GB (median of " + rounds + ") |");
        System.out.println("|---|---:|");
        for (int k = 0; k < names.length; k++) {
            double[] column = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                column[r] = results.get(r)[k];
            }
            java.util.Arrays.sort(column);
            System.out.printf("| %s | %s |%n", names[k], k == 2 ? String.format("%.5f", column[rounds / 2])
                : String.format("%.3f", column[rounds / 2]));
        }
    }

    @FunctionalInterface
    interface Work {
        void run() throws Exception;
    }

    /** This thread's CPU seconds for {@code work}, per GB of {@code bytes}. */
    private static double perGb(long bytes, Work work) throws Exception {
        long start = THREADS.getCurrentThreadCpuTime();
        work.run();
        return (THREADS.getCurrentThreadCpuTime() - start) / 1e9 / (bytes / 1e9);
    }

    private static long crcPass(List<Path> files) throws IOException {
        CRC32C crc = new CRC32C();
        long sum = 0;
        for (Path file : files) {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
                crc.reset();
                crc.update(mapped);
                sum += crc.getValue();
            }
        }
        return sum;
    }

    /** Holds and releases every shard; {@code install}: the cache is empty and each one is copied in. */
    private static void holdAll(ShardCache cache, DatasetManifest manifest, int[] numbers, Path dataset,
                                boolean install) {
        for (int i = 0; i < manifest.shards().size(); i++) {
            DatasetManifest.ShardEntry entry = manifest.shards().get(i);
            Path source = dataset.resolve(entry.file());
            cache.hold("bench", source.toString(), manifest, i, numbers[i], part -> {
                if (!install) {
                    throw new IllegalStateException("a reuse downloaded " + entry.file());
                }
                return copy(source, part);
            });
            cache.release(entry, false);
        }
    }

    /** Copies {@code source} into the new file {@code part}, the CRC32C on the same pass, and forces it. */
    private static ObjectDownload.Body copy(Path source, Path part) {
        try (FileChannel in = FileChannel.open(source, StandardOpenOption.READ);
             FileChannel out = FileChannel.open(part, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            MappedByteBuffer mapped = in.map(FileChannel.MapMode.READ_ONLY, 0, in.size());
            CRC32C crc = new CRC32C();
            crc.update(mapped.duplicate());
            while (mapped.hasRemaining()) {
                out.write(mapped);
            }
            out.force(true);
            return new ObjectDownload.Body("bench", (int) crc.getValue());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void write(Path directory, int shards) throws IOException {
        int side = 512;
        byte[] pixels = new byte[side * side * 3];
        Random random = new Random(5);
        long records = shards * SHARD_BYTES / pixels.length;
        try (DatasetWriter writer = new DatasetWriter(directory, DatasetWriterOptions.defaults()
            .withClasses(List.of("a", "b")).withTargetShardBytes(SHARD_BYTES))) {
            for (long r = 0; r < records; r++) {
                random.nextBytes(pixels);
                writer.appendPixels(new UnsafeBuffer(pixels), 0, side, side, 3, (int) (r % 2), "img" + r, Codec.RAW);
            }
            writer.finish();
        }
    }
}
