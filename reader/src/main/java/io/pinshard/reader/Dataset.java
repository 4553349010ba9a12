package io.pinshard.reader;

import io.pinshard.format.DatasetFiles;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An open dataset: every shard listed in the manifest mapped and validated, records addressed by a
 * global number {@code 0 <= n < size()}. Per-shard state only; nothing per record lives on the heap.
 * Thread-safe for reading; each thread uses its own {@link RecordView}.
 */
public final class Dataset implements AutoCloseable {
    private final Path directory;
    private final DatasetManifest manifest;
    private final MappedShard[] shards;
    private final long[] firstRecord;
    private final long size;
    /** Readers between {@link #acquire()} and {@link #release()}, plus {@link #CLOSED} once closed. */
    private final AtomicInteger users = new AtomicInteger();
    private static final int CLOSED = Integer.MIN_VALUE;

    private Dataset(Path directory, DatasetManifest manifest, MappedShard[] shards, long[] firstRecord) {
        this.directory = directory;
        this.manifest = manifest;
        this.shards = shards;
        this.firstRecord = firstRecord;
        this.size = firstRecord[shards.length];
    }

    /** Opens a dataset, checking the index checksum of every shard. */
    public static Dataset open(Path directory) {
        return open(directory, true);
    }

    /**
     * Opens a dataset: reads the manifest, maps every shard, validates each one's structure and index
     * entries and checks that each shard matches its manifest entry (size and record count).
     */
    public static Dataset open(Path directory, boolean checkIndexCrc) {
        String name = directory.toString();
        if (!Files.isDirectory(directory)) {
            throw new ShardFormatException(Kind.NOT_A_DATASET, name, null, -1, "not a directory", null);
        }
        DatasetManifest manifest = Json.readManifest(directory);
        List<DatasetManifest.ShardEntry> entries = manifest.shards();
        MappedShard[] shards = new MappedShard[entries.size()];
        long[] firstRecord = new long[entries.size() + 1];
        DatasetFiles files = DatasetFiles.of(directory, manifest);
        try {
            for (int i = 0; i < shards.length; i++) {
                DatasetManifest.ShardEntry entry = entries.get(i);
                Path file = files.checkShard(i);
                shards[i] = MappedShard.open(file, name, checkIndexCrc);
                if (shards[i].recordCount() != entry.records()) {
                    throw new ShardFormatException(Kind.MANIFEST_MISMATCH, name, entry.file(), -1, "shard holds "
                        + shards[i].recordCount() + " records, the manifest says " + entry.records(), null);
                }
                files.checkOpened(i, shards[i].structure(), shards[i].buffer());
                firstRecord[i + 1] = firstRecord[i] + entry.records();
            }
        } catch (RuntimeException e) {
            closeAll(shards);
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

    /** Points {@code view} at global record {@code record} and returns it. Allocation-free. */
    public RecordView record(long record, RecordView view) {
        int shard = shardOf(record);
        return view.wrap(shards[shard], record - firstRecord[shard], record);
    }

    /**
     * Marks a read of mapped memory in progress: {@link #close()} waits for it to {@link #release()}.
     * Two atomic operations per bracket, no allocation.
     *
     * @throws IllegalStateException naming the dataset when it is closed
     */
    public void acquire() {
        if (users.getAndIncrement() < 0) {
            users.getAndDecrement();
            throw new IllegalStateException("dataset " + directory + " is closed");
        }
    }

    /** Ends a read begun by {@link #acquire()}. */
    public void release() {
        users.getAndDecrement();
    }

    public boolean isClosed() {
        return users.get() < 0;
    }

    /** Unmaps every shard once reads in progress have released; later calls, from any thread, do nothing. */
    @Override
    public void close() {
        int state;
        do {
            state = users.get();
            if (state < 0) {
                return;
            }
        } while (!users.compareAndSet(state, state | CLOSED));
        while (users.get() != CLOSED) {
            Thread.onSpinWait();
        }
        closeAll(shards);
    }

    private static void closeAll(MappedShard[] shards) {
        for (MappedShard shard : shards) {
            if (shard != null) {
                shard.close();
            }
        }
    }
}
