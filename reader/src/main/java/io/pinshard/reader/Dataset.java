package io.pinshard.reader;

import io.pinshard.format.Codec;
import io.pinshard.format.DatasetFiles;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.agrona.CloseHelper;

/**
 * An open dataset: every shard listed in the manifest mapped and validated, records addressed by a
 * global number {@code 0 <= n < size()}. Per-shard state only; nothing per record lives on the heap.
 * Thread-safe for reading; each thread uses its own {@link RecordView}.
 *
 * <p>Lifetime: {@link #close()} may be called from any thread, any number of times. It refuses new reads
 * and waits for reads in progress (those between {@link #acquire()} and {@link #release()}, and each
 * {@link #record}, {@link RecordDecoder#decode} or key/payload read of a {@link RecordView}) before it unmaps;
 * everything after it throws {@link IllegalStateException} "dataset ... is closed".
 */
public final class Dataset implements AutoCloseable {
    private final Path directory;
    private final DatasetManifest manifest;
    private final MappedShard[] shards;
    private final long[] firstRecord;
    private final long size;
    private final ReadGuard guard;
    private final long[] maxPayloadBytes = new long[Codec.values().length];
    private final long[] maxDecodedBytes = new long[Codec.values().length];

    private Dataset(Path directory, DatasetManifest manifest, MappedShard[] shards, long[] firstRecord) {
        this.directory = directory;
        this.manifest = manifest;
        this.shards = shards;
        this.firstRecord = firstRecord;
        this.size = firstRecord[shards.length];
        this.guard = new ReadGuard("dataset " + directory);
        for (MappedShard shard : shards) {
            for (Codec codec : Codec.values()) {
                maxPayloadBytes[codec.id()] = Math.max(maxPayloadBytes[codec.id()], shard.maxPayloadBytes(codec));
                maxDecodedBytes[codec.id()] = Math.max(maxDecodedBytes[codec.id()], shard.maxDecodedBytes(codec));
            }
        }
    }

    /** Opens a dataset, checking the index checksum of every shard. */
    public static Dataset open(Path directory) {
        return open(directory, true);
    }

    /**
     * Opens a dataset: reads the manifest, maps every shard, validates each one's structure and index
     * entries (against the format's limits and the shapes the dataset's preprocessing allows, {@link
     * RecordLimits}) and checks that each shard matches its manifest entry (size and record count). Refuses,
     * before mapping anything, a dataset with more shards than the kernel lets this process map ({@link
     * MapBudget}).
     */
    public static Dataset open(Path directory, boolean checkIndexCrc) {
        return open(directory, checkIndexCrc, MapBudget.current(), MappedShard::open);
    }

    /** How a shard gets mapped; tests inject failures here. */
    @FunctionalInterface
    interface ShardOpener {
        MappedShard open(Path file, String dataset, boolean checkIndexCrc, RecordLimits limits);
    }

    static Dataset open(Path directory, boolean checkIndexCrc, MapBudget budget, ShardOpener opener) {
        String name = directory.toString();
        if (!Files.isDirectory(directory)) {
            throw new ShardFormatException(Kind.NOT_A_DATASET, name, null, -1, "not a directory", null);
        }
        DatasetManifest manifest = Json.readManifest(directory);
        List<DatasetManifest.ShardEntry> entries = manifest.shards();
        budget.check(name, entries.size());
        RecordLimits limits = RecordLimits.of(manifest);
        MappedShard[] shards = new MappedShard[entries.size()];
        long[] firstRecord = new long[entries.size() + 1];
        DatasetFiles files = DatasetFiles.of(directory, manifest);
        try {
            for (int i = 0; i < shards.length; i++) {
                DatasetManifest.ShardEntry entry = entries.get(i);
                Path file = files.checkShard(i);
                shards[i] = opener.open(file, name, checkIndexCrc, limits);
                if (shards[i].recordCount() != entry.records()) {
                    throw new ShardFormatException(Kind.MANIFEST_MISMATCH, name, entry.file(), -1, "shard holds "
                        + shards[i].recordCount() + " records, the manifest says " + entry.records(), null);
                }
                files.checkOpened(i, shards[i].structure());
                firstRecord[i + 1] = firstRecord[i] + entry.records();
            }
        } catch (Throwable e) { // checked "Map failed" and Errors too: nothing mapped may outlive a failed open
            CloseHelper.quietCloseAll(shards);
            throw e;
        }
        return new Dataset(directory, manifest, shards, firstRecord);
    }

    public Path directory() {
        return directory;
    }

    public DatasetManifest manifest() {
        return manifest;
    }

    public List<String> classes() {
        return manifest.classes();
    }

    /** Number of records. */
    public long size() {
        return size;
    }

    public int shardCount() {
        return shards.length;
    }

    public MappedShard shard(int index) {
        return shards[index];
    }

    /** Global number of the first record of shard {@code index}. */
    public long firstRecordOf(int index) {
        return firstRecord[index];
    }

    /** Largest payload of any {@code codec} record at open (0 when there is none): the most a read may copy. */
    public long maxPayloadBytes(Codec codec) {
        return maxPayloadBytes[codec.id()];
    }

    /** Largest decoded size of any {@code codec} record at open (0 when there is none): sizes decode scratch. */
    public long maxDecodedBytes(Codec codec) {
        return maxDecodedBytes[codec.id()];
    }

    /** Shard holding global record {@code record}. */
    public int shardOf(long record) {
        if (record < 0 || record >= size) {
            throw new IndexOutOfBoundsException("record " + record + " is outside 0.." + (size - 1) + " of " + directory);
        }
        int found = Arrays.binarySearch(firstRecord, record);
        if (found >= 0) {
            while (found + 1 < firstRecord.length && firstRecord[found + 1] == record) {
                found++; // skip empty shards that start at the same record
            }
            return found;
        }
        return -found - 2;
    }

    /**
     * Points {@code view} at global record {@code record} and returns it: copies the record's index entry
     * out of the mapping and checks it again (the file may have changed since open). Allocation-free.
     *
     * @throws IllegalStateException when the dataset is closed
     * @throws ShardFormatException  naming shard and record when the entry is no longer valid
     */
    public RecordView record(long record, RecordView view) {
        int shard = shardOf(record);
        return view.wrap(this, shards[shard], record - firstRecord[shard], record);
    }

    /**
     * Enters a read of this dataset's mappings: until {@link #release()} the mappings stay valid, even when
     * another thread calls {@link #close()} (which waits). Throws "dataset ... is closed" after close.
     */
    public void acquire() {
        guard.acquire();
    }

    /** Leaves a read entered by {@link #acquire()}. */
    public void release() {
        guard.release();
    }

    public boolean isClosed() {
        return guard.isClosed();
    }

    ReadGuard guard() {
        return guard;
    }

    /**
     * Refuses new reads, waits for reads in progress, then unmaps every shard. Idempotent, any thread. After a
     * shard changed under its mapping the wait is bounded ({@link ReadGuard#close()}) and the mappings are left
     * to the garbage collector.
     */
    @Override
    public void close() {
        switch (guard.close()) {
            case CLOSED -> CloseHelper.closeAll(shards);
            case READERS_MAY_REMAIN -> { // after a mapping fault: refuse reads, leave the unmapping to the GC
                for (MappedShard shard : shards) {
                    shard.abandon();
                }
            }
            case ALREADY_CLOSED -> { }
        }
    }

    /**
     * How many more memory mappings this process may make: the kernel's {@code vm.max_map_count} less the
     * mappings in use and {@link #JVM_HEADROOM} left for the JVM (thread stacks, malloc arenas, code heap,
     * native libraries). Every shard is one mapping for as long as the dataset is open; a dataset with more
     * shards than the budget is refused before anything is mapped (rather than mapped lazily with a bound on
     * live mappings: the loader reads shards in random order, so a bound would mean unmapping and remapping
     * per record). On systems without {@code /proc} there is no budget.
     */
    record MapBudget(long maxMapCount, long inUse) {
        static final long JVM_HEADROOM = 4096;
        static final MapBudget UNLIMITED = new MapBudget(Long.MAX_VALUE, 0);

        static MapBudget current() {
            Path limit = Path.of("/proc/sys/vm/max_map_count");
            Path maps = Path.of("/proc/self/maps");
            if (!Files.isReadable(limit) || !Files.isReadable(maps)) {
                return UNLIMITED;
            }
            // Line readers, not readAllBytes: /proc files report size 0, and some kernels then return one byte.
            try (BufferedReader max = Files.newBufferedReader(limit); Stream<String> lines = Files.lines(maps)) {
                return new MapBudget(Long.parseLong(max.readLine().trim()), lines.count());
            } catch (IOException | RuntimeException e) {
                return UNLIMITED;
            }
        }

        void check(String dataset, int shards) {
            if (maxMapCount == Long.MAX_VALUE) {
                return;
            }
            long available = maxMapCount - inUse - JVM_HEADROOM;
            if (shards > available) {
                throw new IllegalStateException("dataset " + dataset + " has " + shards + " shards, but this process"
                    + " may map only " + Math.max(0, available) + " more files: the kernel allows " + maxMapCount
                    + " memory mappings per process (vm.max_map_count), " + inUse + " are in use and " + JVM_HEADROOM
                    + " are kept for the JVM. pinshard maps every shard while the dataset is open. Raise the limit "
                    + "(sysctl -w vm.max_map_count=" + Math.max(262_144, 2 * (inUse + JVM_HEADROOM + shards))
                    + ") or convert into fewer, larger shards (convert --shard-size).");
            }
        }
    }
}
