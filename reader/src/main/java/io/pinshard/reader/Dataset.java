package io.pinshard.reader;

import io.pinshard.format.Codec;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.ShardFormatException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.agrona.CloseHelper;

/**
 * An open dataset: the manifest's shards from a {@link ShardSource} (a directory's {@link LocalShardSource}, or a
 * remote store's), records addressed by a global number {@code 0 <= n < size()}. Per-shard state only; nothing per
 * record lives on the heap. Thread-safe for reading; each thread uses its own {@link RecordView}. The dataset keeps
 * the records' numbering, the read guard and the largest sizes (which grow as shards are first used); where its
 * shards are mapped is {@link ShardMappings}'s: a local dataset's all at open, each shard's index checked on its
 * first use; a streamed one's ({@link #open(String)} of {@code s3://bucket/prefix}) each on first use ({@link
 * #shard} blocks while the source fetches and verifies it) and let go again ({@link #evict}, the loader's
 * prefetcher's, under the cache limit); a local one with more shards than this process should map at once
 * ({@link #open(Path, boolean)}) each on first use too, the least recently used one without a reader inside unmapped
 * to make room ({@link MappingBound}). A shard mapped on demand has its own read guard: unmapping waits for the
 * reads inside it, and a read that finds it unmapped maps it again. A view from {@link #record} there stays readable
 * until its shard is unmapped; {@link #pin} keeps it mapped.
 *
 * <p>Lifetime: {@link #close()} may be called from any thread, any number of times. It refuses new reads
 * and waits for reads in progress (those between {@link #acquire()} and {@link #release()}, and each
 * {@link #record}, {@link RecordDecoder#decode} or key/payload read of a {@link RecordView}) before it unmaps;
 * everything after it throws {@link IllegalStateException} "dataset ... is closed".
 */
public final class Dataset implements AutoCloseable {
    /** System property: the most shards a local dataset maps at once (default: see {@link MapBudget#limitFor}). */
    public static final String MAX_MAPPED_SHARDS_PROPERTY = "pinshard.maxMappedShards";

    private final ShardSource source;
    private final DatasetManifest manifest;
    private final long[] firstRecord;
    private final long size;
    private final ReadGuard guard;
    private final LargestSizes sizes = new LargestSizes();
    private final ShardMappings shards;

    private Dataset(ShardSource source, boolean checkIndexCrc, MapBudget budget, ShardOpener opener) {
        this.source = source;
        this.manifest = source.manifest();
        List<DatasetManifest.ShardEntry> entries = manifest.shards();
        this.firstRecord = new long[entries.size() + 1];
        for (int i = 0; i < entries.size(); i++) {
            firstRecord[i + 1] = firstRecord[i] + entries.get(i).records();
        }
        this.size = firstRecord[entries.size()];
        this.guard = new ReadGuard("dataset " + source.location());
        this.shards = mappings(source, checkIndexCrc, budget, opener);
    }

    /** Where the shards are mapped: a remote source's on first use; a local one's at open, or on use within a bound. */
    private ShardMappings mappings(ShardSource source, boolean checkIndexCrc, MapBudget budget, ShardOpener opener) {
        int count = manifest.shards().size();
        if (!source.local()) {
            return new ShardsOnDemand(source, null, true, guard, sizes);
        }
        int limit = budget.limitFor(source.location(), count);
        if (limit < count) {
            return new ShardsOnDemand(source, new MappingBound(limit, count), checkIndexCrc, guard, sizes);
        }
        return ShardsMappedAtOpen.map(source, checkIndexCrc, opener, guard, sizes);
    }

    /**
     * Opens a dataset at {@code location}: a local directory, or a remote location such as
     * {@code s3://bucket/prefix} served by a {@link ShardSourceProvider} on the class path (module {@code s3}) with
     * its default settings (see {@link #open(String, Map)}).
     */
    public static Dataset open(String location) {
        return open(location, Map.of());
    }

    /**
     * Opens a dataset at {@code location} (see {@link #open(String)}); {@code options} go to the remote provider
     * (for {@code s3://}: endpoint, region, pathStyle, cacheDir, cacheLimit) and are ignored for a directory.
     *
     * @throws IllegalArgumentException when no provider on the class path serves the location's scheme
     */
    public static Dataset open(String location, Map<String, String> options) {
        int scheme = location.indexOf("://");
        if (scheme < 1) {
            return open(Path.of(location));
        }
        return open(ShardSourceProvider.open(location, location.substring(0, scheme + 3), options));
    }

    /**
     * Opens the dataset {@code source} serves and takes ownership of it (closing the dataset closes the source). A
     * {@link ShardSource#local() local} source is opened as {@link #open(Path)} opens its directory; any other is
     * streamed: shards are mapped on first use.
     */
    public static Dataset open(ShardSource source) {
        return open(source, true, MapBudget.current(), MappedShard::openFrame);
    }

    /** Opens a dataset, checking the index checksum of every shard. */
    public static Dataset open(Path directory) {
        return open(directory, true);
    }

    /**
     * Opens a local dataset ({@link LocalShardSource#open}: manifest read, every listed file checked), maps every
     * shard and checks its frame and its manifest entry (record count, shard number): O(shards). Each shard's index
     * (its CRC32C when {@code checkIndexCrc}; every entry against the format's limits and {@link RecordLimits}) is
     * checked on the shard's first use. A dataset with more shards than this process should map at once ({@link
     * MapBudget#limitFor}: from {@code vm.max_map_count}, or {@value #MAX_MAPPED_SHARDS_PROPERTY}) maps each shard on
     * first use instead, within that bound.
     */
    public static Dataset open(Path directory, boolean checkIndexCrc) {
        return open(LocalShardSource.open(directory), checkIndexCrc, MapBudget.current(), MappedShard::openFrame);
    }

    /**
     * {@link #open(Path, boolean)} mapping at most {@code maxMappedShards} shards at once (fewer if the kernel's
     * budget is smaller); a dataset of no more shards maps them all at open.
     */
    public static Dataset open(Path directory, boolean checkIndexCrc, int maxMappedShards) {
        MapBudget budget = MapBudget.current().withLimit(maxMappedShards);
        return open(LocalShardSource.open(directory), checkIndexCrc, budget, MappedShard::openFrame);
    }

    /** Opens {@code source}'s dataset, mapping with {@code opener} (tests inject failures); closes it on failure. */
    static Dataset open(ShardSource source, boolean checkIndexCrc, MapBudget budget, ShardOpener opener) {
        try {
            return new Dataset(source, checkIndexCrc, budget, opener);
        } catch (Throwable e) {
            CloseHelper.quietClose(source);
            throw e;
        }
    }

    /** The local directory the shard files are in: the dataset's own, or for a streamed one its cache directory. */
    public Path directory() {
        return source.directory();
    }

    /** How messages name the dataset: its directory, or its remote location ({@code s3://bucket/prefix}). */
    public String location() {
        return source.location();
    }

    /** The most shards mapped at once: {@link Integer#MAX_VALUE} unless opened with a bound (see {@link #open(Path, boolean)}). */
    public int mappingLimit() {
        return shards.mappingLimit();
    }

    /** With a mapping bound, the most shards that were mapped at once since open (else 0). */
    int mappedPeak() {
        return shards.mappedPeak();
    }

    /** Bytes of shards the source lets this process hold at once ({@link Long#MAX_VALUE}: no limit). */
    public long cacheLimitBytes() {
        return source.limitBytes();
    }

    /** Shards the loader's prefetcher may fetch at once ({@link ShardSource#fetchConcurrency()}; 0: local files). */
    public int fetchConcurrency() {
        return source.fetchConcurrency();
    }

    /** Bytes the source has downloaded so far (0 for a local dataset). */
    public long bytesFetched() {
        return source.bytesFetched();
    }

    /** Length of shard {@code index}'s file, from the manifest. */
    public long shardBytes(int index) {
        return manifest.shards().get(index).bytes();
    }

    /** Length of the dataset's largest shard file, from the manifest (0 for a dataset of no shards). */
    public long largestShardBytes() {
        long largest = 0;
        for (DatasetManifest.ShardEntry entry : manifest.shards()) {
            largest = Math.max(largest, entry.bytes());
        }
        return largest;
    }

    public DatasetManifest manifest() {
        return manifest;
    }

    public List<String> classes() {
        return manifest.classes();
    }

    /** The records' field schema (the manifest's {@code fields}; empty for a dataset without fields, format 1.0). */
    public List<FieldSchema> fields() {
        return manifest.fieldSchema();
    }

    /** Position of field {@code name} in {@link #fields()} (what {@link RecordView}'s field reads take), or -1. */
    public int fieldIndex(String name) {
        return FieldSchema.indexOf(manifest.fieldSchema(), name);
    }

    /** Number of records. */
    public long size() {
        return size;
    }

    public int shardCount() {
        return firstRecord.length - 1;
    }

    /**
     * Shard {@code index}, mapped and its index checked: mapped now if it is not (for a streamed dataset the source
     * fetches and verifies it first, blocking), its index checked now if this is its first use.
     *
     * @throws ShardFormatException naming the shard (and its remote object) when it cannot be had or is corrupt
     * @throws IllegalStateException when the dataset is closed
     */
    public MappedShard shard(int index) {
        return shards.shard(index);
    }

    /** Whether shard {@code index} is mapped now (always, for a local dataset mapped at open). */
    public boolean isLoaded(int index) {
        return shards.isMapped(index);
    }

    /**
     * A read found shard {@code index}, mapped as {@code failed}, corrupt ({@code found}: a payload CRC, a decode).
     * For a streamed dataset, the mapping goes (once the reads inside it have left: call this with no view of
     * the shard pinned), the source drops its cached copy ({@link ShardSource#discard}), and the result is null:
     * read the record again, from a copy fetched anew. Else the exception to throw: {@code found} itself for a
     * local dataset, and for a shard already fetched again once, {@code found} naming its object and saying so.
     */
    public ShardFormatException refetchCorrupt(int index, MappedShard failed, ShardFormatException found) {
        return shards.refetchCorrupt(index, failed, found);
    }

    /**
     * Unmaps shard {@code index} of a streamed dataset, once the reads inside it have left, and tells the source it
     * is no longer needed (the cache may delete it). A read that wants it later maps it again. False when it was
     * not mapped, or the dataset's mappings are not let go on request (local ones).
     */
    public boolean evict(int index) {
        return shards.evict(index);
    }

    /**
     * Sets (null: clears) what a streamed dataset tells around each mapping of a shard not mapped yet ({@link
     * MapListener}); one listener at a time. False when the dataset does not tell one (local shards).
     */
    public boolean mapListener(MapListener listener) {
        return shards.listener(listener);
    }

    /** Global number of the first record of shard {@code index}. */
    public long firstRecordOf(int index) {
        return firstRecord[index];
    }

    /**
     * Largest payload of any {@code codec} record in the shards whose index has been checked so far (0 when there
     * is none): grows as shards are first used.
     */
    public long maxPayloadBytes(Codec codec) {
        return sizes.payloadBytes(codec);
    }

    /** Largest decoded size of any {@code codec} record in the shards checked so far (see {@link #maxPayloadBytes}). */
    public long maxDecodedBytes(Codec codec) {
        return sizes.decodedBytes(codec);
    }

    /** Shard holding global record {@code record}. */
    public int shardOf(long record) {
        if (record < 0 || record >= size) {
            throw new IndexOutOfBoundsException("record " + record + " is outside 0.." + (size - 1) + " of "
                + directory());
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
        return shards.record(this, shard, record - firstRecord[shard], record, view);
    }

    /**
     * Like {@link #record}, and keeps the record's shard mapped until {@link RecordView#unpin()}: {@link #evict}
     * waits for it. What the loader's workers call around each sample (reads straight from the mapping, such as
     * the vector crop kernel's, happen between). For a dataset mapped at open the same as {@link #record}.
     */
    public RecordView pin(long record, RecordView view) {
        int shard = shardOf(record);
        return shards.pin(this, shard, record - firstRecord[shard], record, view);
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
     * Refuses new reads, waits for reads in progress, then unmaps every shard and closes the source. Idempotent, any
     * thread. After a shard changed under its mapping the wait is bounded ({@link ReadGuard#close()}) and the
     * mappings are left to the garbage collector.
     */
    @Override
    public void close() {
        ReadGuard.Outcome outcome = guard.close();
        if (outcome == ReadGuard.Outcome.ALREADY_CLOSED) {
            return;
        }
        try {
            shards.unmapAll(outcome);
        } finally {
            source.close();
        }
    }
}
