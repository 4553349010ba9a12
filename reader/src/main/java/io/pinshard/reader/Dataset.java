package io.pinshard.reader;

import io.pinshard.format.Codec;
import io.pinshard.format.DatasetFiles;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.Json;
import io.pinshard.format.ManifestRules;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.stream.Stream;
import org.agrona.CloseHelper;

/**
 * An open dataset: every shard listed in the manifest mapped and its frame validated at open (O(shards)),
 * each shard's index validated on the shard's first use ({@link MappedShard#checkIndex}: before any of its
 * records is served), records addressed by a global number {@code 0 <= n < size()}. Per-shard state only;
 * nothing per record lives on the heap. Thread-safe for reading; each thread uses its own {@link RecordView}.
 *
 * <p>Lifetime: {@link #close()} may be called from any thread, any number of times. It refuses new reads
 * and waits for reads in progress (those between {@link #acquire()} and {@link #release()}, and each
 * {@link #record}, {@link RecordDecoder#decode} or key/payload read of a {@link RecordView}) before it unmaps;
 * everything after it throws {@link IllegalStateException} "dataset ... is closed".
 *
 * <p>Streamed datasets ({@link #open(String)} of a remote location such as {@code s3://bucket/prefix}, through a
 * {@link ShardSource} that is not {@link ShardSource#local() local}): shards are mapped on first use
 * ({@link #load}, which blocks while the source fetches and verifies the file) and may be let go again
 * ({@link #evict}: the loader's prefetcher does so under the source's cache limit). Each shard then has its own
 * read guard: evicting waits for the reads inside that shard, and a read that finds its shard evicted maps it
 * again, so no read ever touches an unmapped shard. The per-codec largest sizes grow as shards are mapped.
 *
 * <p>Local datasets with more shards than this process should map at once ({@link #open(Path, boolean)}) work the
 * same way without a source: each shard is mapped on first use, and when the bound ({@link #mappingLimit()}) is
 * reached the least recently used shard that no reader is inside is unmapped first ({@link MappingBound}).
 * A view from {@link #record} there stays readable until its shard is unmapped; {@link #pin} keeps it mapped.
 */
public final class Dataset implements AutoCloseable {
    private final Path directory;
    private final String location;
    private final DatasetManifest manifest;
    private final MappedShard[] shards;
    /** Datasets that map on demand (streamed, or local with a mapping bound; else null): the shards mapped now. */
    private final AtomicReferenceArray<MappedShard> streamed;
    /** A local dataset with more shards than it may map at once (else null): the mapping count's bound. */
    private final MappingBound bound;
    /** With {@link #bound}: each shard's file, checked at open (regular file, listed once, manifest length). */
    private final Path[] boundedFiles;
    private final boolean checkIndexCrc;
    private final Object[] shardLocks;
    private final ShardSource source;
    private final RecordLimits limits;
    private final int[] expectedNumbers;
    private final long[] firstRecord;
    private final long size;
    private final ReadGuard guard;
    private final long[] maxPayloadBytes = new long[Codec.values().length];
    private final long[] maxDecodedBytes = new long[Codec.values().length];
    /** A local source handed to {@link #open(ShardSource)}: closed with the dataset. */
    private ShardSource ownedSource;

    private Dataset(Path directory, DatasetManifest manifest, MappedShard[] shards, long[] firstRecord) {
        this.directory = directory;
        this.location = directory.toString();
        this.manifest = manifest;
        this.shards = shards;
        this.streamed = null;
        this.bound = null;
        this.boundedFiles = null;
        this.checkIndexCrc = true;
        this.shardLocks = null;
        this.source = null;
        this.limits = null;
        this.expectedNumbers = null;
        this.firstRecord = firstRecord;
        this.size = firstRecord[shards.length];
        this.guard = new ReadGuard("dataset " + directory);
        for (MappedShard shard : shards) {
            grow(shard);
        }
    }

    /** A streamed dataset over {@code source}: nothing mapped yet. */
    private Dataset(ShardSource source) {
        this(source.directory(), source.location(), source.manifest(), source, null, null, true);
    }

    /**
     * A dataset mapped on demand: streamed from {@code source}, or (source null) local with at most {@code bound}'s
     * limit of {@code files} mapped at once.
     */
    private Dataset(Path directory, String location, DatasetManifest manifest, ShardSource source, MappingBound bound,
                    Path[] files, boolean checkIndexCrc) {
        this.directory = directory;
        this.location = location;
        this.manifest = manifest;
        this.bound = bound;
        this.boundedFiles = files;
        this.checkIndexCrc = checkIndexCrc;
        List<DatasetManifest.ShardEntry> entries = manifest.shards();
        this.shards = null;
        this.streamed = new AtomicReferenceArray<>(entries.size());
        this.shardLocks = new Object[entries.size()];
        Arrays.setAll(shardLocks, i -> new Object());
        this.source = source;
        this.limits = RecordLimits.of(manifest);
        this.expectedNumbers = ManifestRules.expectedShardNumbers(entries);
        this.firstRecord = new long[entries.size() + 1];
        for (int i = 0; i < entries.size(); i++) {
            firstRecord[i + 1] = firstRecord[i] + entries.get(i).records();
        }
        this.size = firstRecord[entries.size()];
        this.guard = new ReadGuard("dataset " + location);
    }

    private synchronized void grow(MappedShard shard) {
        for (Codec codec : Codec.values()) {
            maxPayloadBytes[codec.id()] = Math.max(maxPayloadBytes[codec.id()], shard.maxPayloadBytes(codec));
            maxDecodedBytes[codec.id()] = Math.max(maxDecodedBytes[codec.id()], shard.maxDecodedBytes(codec));
        }
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
        String prefix = location.substring(0, scheme + 3);
        for (ShardSourceProvider provider : ServiceLoader.load(ShardSourceProvider.class)) {
            if (provider.scheme().equals(prefix)) {
                return open(provider.open(location, options));
            }
        }
        throw new IllegalArgumentException("cannot open " + location + ": no module on the class path serves "
            + prefix + " locations (" + prefix + " needs pinshard-s3, which the pinshard CLI includes)");
    }

    /**
     * Opens the dataset {@code source} serves and takes ownership of it (closing the dataset closes the source). A
     * {@link ShardSource#local() local} source is opened as {@link #open(Path)} opens its directory; any other
     * is streamed: shards are mapped on first use.
     */
    public static Dataset open(ShardSource source) {
        try {
            if (source.local()) {
                Dataset local = open(source.directory());
                return local.withSource(source);
            }
            return new Dataset(source);
        } catch (Throwable e) {
            CloseHelper.quietClose(source);
            throw e;
        }
    }

    private Dataset withSource(ShardSource owned) {
        this.ownedSource = owned;
        return this;
    }

    /** Opens a dataset, checking the index checksum of every shard. */
    public static Dataset open(Path directory) {
        return open(directory, true);
    }

    /** System property: the most shards a local dataset maps at once (default: see {@link MapBudget#limitFor}). */
    public static final String MAX_MAPPED_SHARDS_PROPERTY = "pinshard.maxMappedShards";

    /**
     * Opens a dataset: reads the manifest, maps every shard, validates each one's frame (header, footer, section
     * tiling) and checks that each shard matches its manifest entry (size, record count, shard number): O(shards).
     * Each shard's index (its CRC32C when {@code checkIndexCrc}, and every entry against the format's limits and
     * the shapes the dataset's preprocessing allows, {@link RecordLimits}) is checked on the shard's first use,
     * before any of its records is served. A dataset with more shards than this process should map at once
     * ({@link MapBudget#limitFor}: from the kernel's {@code vm.max_map_count}, or {@value #MAX_MAPPED_SHARDS_PROPERTY})
     * is opened with a bound instead: its files are checked now, each shard is mapped (and its frame and index
     * checked) on first use, and the least recently used shard without a reader inside is unmapped to make room.
     */
    public static Dataset open(Path directory, boolean checkIndexCrc) {
        return open(directory, checkIndexCrc, MapBudget.current(), MappedShard::openFrame);
    }

    /**
     * {@link #open(Path, boolean)} mapping at most {@code maxMappedShards} shards at once (fewer if the kernel's
     * budget is smaller); a dataset of no more shards maps them all at open.
     */
    public static Dataset open(Path directory, boolean checkIndexCrc, int maxMappedShards) {
        return open(directory, checkIndexCrc, MapBudget.current().withLimit(maxMappedShards), MappedShard::openFrame);
    }

    /** How a shard gets mapped; tests inject failures here. */
    @FunctionalInterface
    interface ShardOpener {
        MappedShard open(Path file, String dataset, boolean checkIndexCrc, RecordLimits limits);
    }

    static Dataset open(Path directory, boolean checkIndexCrc, MapBudget budget, ShardOpener opener) {
        String name = directory.toString();
        DatasetDirectory.check(directory);
        DatasetManifest manifest = Json.readManifest(directory);
        List<DatasetManifest.ShardEntry> entries = manifest.shards();
        int limit = budget.limitFor(name, entries.size());
        DatasetFiles files = DatasetFiles.of(directory, manifest);
        if (limit < entries.size()) {
            Path[] checked = new Path[entries.size()];
            for (int i = 0; i < checked.length; i++) {
                checked[i] = files.checkShard(i); // once: a file listed twice is refused here, before any mapping
            }
            return new Dataset(directory, name, manifest, null, new MappingBound(limit, entries.size()), checked,
                checkIndexCrc);
        }
        RecordLimits limits = RecordLimits.of(manifest);
        MappedShard[] shards = new MappedShard[entries.size()];
        long[] firstRecord = new long[entries.size() + 1];
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

    /** The local directory the shard files are in: the dataset's own, or for a streamed one its cache directory. */
    public Path directory() {
        return directory;
    }

    /** How messages name the dataset: its directory, or its remote location ({@code s3://bucket/prefix}). */
    public String location() {
        return location;
    }

    /** Whether shards are mapped on demand from a remote source (see the class comment). */
    public boolean isStreamed() {
        return source != null;
    }

    /** The most shards mapped at once: {@link Integer#MAX_VALUE} unless opened with a bound (see {@link #open(Path, boolean)}). */
    public int mappingLimit() {
        return bound == null ? Integer.MAX_VALUE : bound.limit();
    }

    /** With a mapping bound, the most shards that were mapped at once since open (else 0). */
    int mappedPeak() {
        if (bound == null) {
            return 0;
        }
        synchronized (bound) {
            return bound.peak();
        }
    }

    /** Bytes of shards the source lets this process hold at once ({@link Long#MAX_VALUE}: no limit). */
    public long cacheLimitBytes() {
        return source == null ? Long.MAX_VALUE : source.limitBytes();
    }

    /** Shards the loader's prefetcher may fetch at once ({@link ShardSource#fetchConcurrency()}; 1 if local). */
    public int fetchConcurrency() {
        return source == null ? 1 : Math.max(1, source.fetchConcurrency());
    }

    /** Bytes the source has downloaded so far (0 for a local dataset). */
    public long bytesFetched() {
        return source == null ? 0 : source.bytesFetched();
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
     * Shard {@code index}, mapped and its index checked (a streamed dataset maps it now if it is not: see {@link
     * #load}; a local one checks its index now if this is its first use).
     */
    public MappedShard shard(int index) {
        return streamed == null ? checked(index) : loaded(index);
    }

    /** Local shard {@code index}, its index checked first if this is its first use. */
    private MappedShard checked(int index) {
        MappedShard shard = shards[index];
        if (!shard.isIndexChecked() && !guard.isClosed()) { // closed: the shard refuses every read anyway
            guard.acquire(); // close() must not unmap under the walk
            try {
                shard.checkIndex();
            } finally {
                guard.release();
            }
            grow(shard);
        }
        return shard;
    }

    /** Whether shard {@code index} is mapped now (always, unless streamed). */
    public boolean isLoaded(int index) {
        return streamed == null || streamed.get(index) != null;
    }

    private MappedShard loaded(int index) {
        if (bound != null) {
            bound.used(index);
        }
        MappedShard mapped = streamed.get(index);
        return mapped != null ? mapped : load(index);
    }

    /**
     * Maps shard {@code index} unless it is mapped: for a streamed dataset the source fetches and verifies it
     * first (blocking), and the mapped shard is checked like every shard at {@link #open(Path)} (structure, index
     * entries against the dataset's limits, record count and shard number against the manifest).
     *
     * @throws ShardFormatException naming the shard (and its remote object) when it cannot be had or is corrupt
     * @throws IllegalStateException when the dataset is closed
     */
    public MappedShard load(int index) {
        if (streamed == null) {
            return checked(index);
        }
        MappedShard mapped = streamed.get(index);
        if (mapped != null) {
            return mapped;
        }
        if (guard.isClosed()) {
            throw guard.closedException();
        }
        // Under the shard's lock, the download included: the source's hold and the mapping come and go together
        // (an eviction releases the hold only while no mapping exists), and threads wanting one shard wait for it.
        synchronized (shardLocks[index]) {
            mapped = streamed.get(index);
            if (mapped != null) {
                return mapped;
            }
            if (guard.isClosed()) {
                throw guard.closedException();
            }
            mapped = mapChecked(index);
            grow(mapped);
            streamed.set(index, mapped); // after grow: a reader that finds the shard sees its sizes
            return mapped;
        }
    }

    /**
     * Under the shard's lock: has the source (or the bound) make shard {@code index} local, maps it and checks it
     * against the manifest. A remote copy that fails (its cached file damaged since it was installed) is dropped
     * and fetched again, once ({@link ShardSource#discard}).
     */
    private MappedShard mapChecked(int index) {
        DatasetManifest.ShardEntry entry = manifest.shards().get(index);
        for (;;) {
            Path file = source != null ? source.acquire(index) : boundedFile(index, entry);
            MappedShard mapped = null;
            try {
                mapped = MappedShard.open(file, location, checkIndexCrc, limits);
                if (mapped.recordCount() != entry.records()) {
                    throw new ShardFormatException(Kind.MANIFEST_MISMATCH, location, entry.file(), -1, "shard holds "
                        + mapped.recordCount() + " records, the manifest says " + entry.records(), null);
                }
                ManifestRules.checkShardNumber(location, entry.file(), expectedNumbers[index],
                    mapped.structure().shardNumber());
                return mapped;
            } catch (ShardFormatException e) {
                if (mapped != null) {
                    mapped.close();
                }
                if (source == null || e.kind() == Kind.IO_ERROR) {
                    letGo(index);
                    throw e;
                }
                if (!source.discard(index)) {
                    throw fetchedAgainAndFailed(index, e);
                }
            } catch (RuntimeException | Error e) {
                if (mapped != null) {
                    mapped.close();
                }
                letGo(index);
                throw e;
            }
        }
    }

    /**
     * A read found shard {@code index}, mapped as {@code failed}, corrupt ({@code found}: a payload CRC, a decode).
     * For a streamed dataset, the mapping goes (once the reads inside it have left: call this with no view of
     * the shard pinned), the source drops its cached copy ({@link ShardSource#discard}), and the result is null:
     * read the record again, from a copy fetched anew. Else the exception to throw: {@code found} itself for a
     * local dataset, and for a shard already fetched again once, {@code found} naming its object and saying so.
     */
    public ShardFormatException refetchCorrupt(int index, MappedShard failed, ShardFormatException found) {
        if (source == null || found.kind() == Kind.IO_ERROR) {
            return found;
        }
        boolean again;
        synchronized (shardLocks[index]) {
            if (streamed.get(index) != failed) {
                // Dropped already, by another reader that found it (or evicted): read the record again, from the
                // copy mapped next; should that fail too, its reader drops it and is told no.
                return null;
            }
            streamed.set(index, null);
            again = source.discard(index);
        }
        failed.close(); // waits for the reads inside it; the dropped file stays readable to them
        return again ? null : fetchedAgainAndFailed(index, found);
    }

    private ShardFormatException fetchedAgainAndFailed(int index, ShardFormatException found) {
        return new ShardFormatException(found.kind(), location, manifest.shards().get(index).file(), found.record(),
            found.detail() + "; " + source.origin(index) + " was fetched again after its cached copy failed, and "
                + "the new copy fails too (the store's object, or this node's disk or memory, is at fault)", found);
    }

    /** Reserves the mapping of local shard {@code index} (evicting if need be) and checks its file's length again. */
    private Path boundedFile(int index, DatasetManifest.ShardEntry entry) {
        synchronized (bound) {
            bound.reserve(index, this::tryEvict);
        }
        Path file = boundedFiles[index];
        try {
            ManifestRules.checkShardSize(location, entry, Files.size(file));
        } catch (IOException e) {
            letGo(index);
            throw new ShardFormatException(Kind.IO_ERROR, location, entry.file(), -1, "cannot read: " + e, e);
        } catch (RuntimeException e) {
            letGo(index);
            throw e;
        }
        return file;
    }

    /** Under the bound's monitor: unmaps {@code shard} unless a reader is inside it (or it is being mapped). */
    private boolean tryEvict(int shard) {
        MappedShard mapped = streamed.get(shard);
        if (mapped == null || !mapped.tryClose()) {
            return false;
        }
        streamed.compareAndSet(shard, mapped, null); // a reader that found it closed maps it again
        return true;
    }

    /** The hold on shard {@code index} a failed load took: the source's, or the bound's reserved mapping. */
    private void letGo(int index) {
        if (source != null) {
            source.release(index);
        } else {
            synchronized (bound) {
                bound.cancel(index);
            }
        }
    }

    /**
     * Unmaps shard {@code index} of a streamed dataset, once the reads inside it have left, and tells the source it
     * is no longer needed (the cache may delete it). A read that wants it later maps it again. False when it was
     * not mapped, or the dataset is not streamed.
     */
    public boolean evict(int index) {
        if (source == null) {
            return false;
        }
        MappedShard mapped;
        synchronized (shardLocks[index]) {
            mapped = streamed.getAndSet(index, null);
        }
        if (mapped == null) {
            return false;
        }
        mapped.close(); // waits for the reads inside it
        synchronized (shardLocks[index]) {
            if (streamed.get(index) == null) {
                source.release(index);
            }
        }
        return true;
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
        return maxPayloadBytes[codec.id()];
    }

    /** Largest decoded size of any {@code codec} record in the shards checked so far (see {@link #maxPayloadBytes}). */
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
        if (streamed == null) {
            return view.wrap(this, checked(shard), record - firstRecord[shard], record);
        }
        for (;;) {
            MappedShard mapped = loaded(shard);
            ReadGuard shardGuard = mapped.guard();
            if (shardGuard.tryAcquire()) { // false: evicted since we looked it up; map it again
                try {
                    return view.wrap(shardGuard, this, mapped, record - firstRecord[shard], record);
                } finally {
                    shardGuard.release();
                }
            }
        }
    }

    /**
     * Like {@link #record}, and keeps the record's shard mapped until {@link RecordView#unpin()}: {@link #evict}
     * waits for it. What the loader's workers call around each sample (reads straight from the mapping, such as
     * the vector crop kernel's, happen between). For a local dataset the same as {@link #record}.
     */
    public RecordView pin(long record, RecordView view) {
        if (streamed == null) {
            return record(record, view);
        }
        int shard = shardOf(record);
        view.unpin(); // before mapping: a thread waiting for a mapping must not hold one that could make room
        for (;;) {
            MappedShard mapped = loaded(shard);
            ReadGuard shardGuard = mapped.guard();
            if (shardGuard.tryAcquire()) { // false: evicted since we looked it up; map it again
                try {
                    // The pin keeps the shard mapped; the view's own reads take the dataset's guard, which an
                    // eviction does not close (a closing shard guard would refuse them while the pin is held).
                    view.wrap(guard, this, mapped, record - firstRecord[shard], record);
                } catch (RuntimeException | Error e) {
                    shardGuard.release();
                    throw e;
                }
                view.pinned(shardGuard);
                return view;
            }
        }
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
        ReadGuard.Outcome outcome = guard.close();
        if (outcome == ReadGuard.Outcome.ALREADY_CLOSED) {
            return;
        }
        try {
            MappedShard[] mapped = shards != null ? shards : takeStreamed();
            switch (outcome) {
                case CLOSED -> CloseHelper.closeAll(mapped);
                case READERS_MAY_REMAIN -> { // after a mapping fault: refuse reads, leave the unmapping to the GC
                    for (MappedShard shard : mapped) {
                        if (shard != null) {
                            shard.abandon();
                        }
                    }
                }
                default -> { }
            }
        } finally {
            CloseHelper.closeAll(source, ownedSource);
        }
    }

    /** Empties every streamed slot (a load in progress sees the dataset closed and maps nothing). */
    private MappedShard[] takeStreamed() {
        MappedShard[] mapped = new MappedShard[streamed.length()];
        for (int i = 0; i < mapped.length; i++) {
            synchronized (shardLocks[i]) {
                mapped[i] = streamed.getAndSet(i, null);
            }
        }
        return mapped;
    }

    /**
     * How many more memory mappings this process may make: the kernel's {@code vm.max_map_count} less the
     * mappings in use and {@link #JVM_HEADROOM} left for the JVM (thread stacks, malloc arenas, code heap,
     * native libraries), and how many shards of a dataset to keep mapped at once ({@link #limitFor}). On systems
     * without {@code /proc} there is no budget.
     *
     * @param configured the most shards to map at once that the caller asked for (0: {@value
     *                   #MAX_MAPPED_SHARDS_PROPERTY} or no such limit)
     */
    record MapBudget(long maxMapCount, long inUse, int configured) {
        static final long JVM_HEADROOM = 4096;
        static final MapBudget UNLIMITED = new MapBudget(Long.MAX_VALUE, 0);

        MapBudget(long maxMapCount, long inUse) {
            this(maxMapCount, inUse, 0);
        }

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

        MapBudget withLimit(int maxMappedShards) {
            if (maxMappedShards < MappingBound.MIN_LIMIT) {
                throw new IllegalArgumentException("maxMappedShards must be at least " + MappingBound.MIN_LIMIT + ": "
                    + maxMappedShards);
            }
            return new MapBudget(maxMapCount, inUse, maxMappedShards);
        }

        /**
         * How many of a dataset's {@code shards} to keep mapped at once: all of them when they fit both the
         * mappings left and the configured limit (the dataset then maps every shard at open); else the configured
         * limit, at most half the mappings left (the other half stays for the rest of the process: a second
         * dataset, the loader's memory, libraries loaded later).
         *
         * @throws IllegalStateException when fewer than {@link MappingBound#MIN_LIMIT} mappings would be left
         */
        int limitFor(String dataset, int shards) {
            long available = maxMapCount == Long.MAX_VALUE ? Long.MAX_VALUE : maxMapCount - inUse - JVM_HEADROOM;
            int asked = configured > 0 ? configured : Integer.getInteger(MAX_MAPPED_SHARDS_PROPERTY, 0);
            if (shards <= available && (asked <= 0 || shards <= asked)) {
                return shards;
            }
            long limit = Math.min(asked > 0 ? asked : Long.MAX_VALUE,
                available == Long.MAX_VALUE ? Long.MAX_VALUE : available / 2);
            if (limit < MappingBound.MIN_LIMIT) {
                throw new IllegalStateException("dataset " + dataset + " has " + shards + " shards, but this process"
                    + " may map only " + Math.max(0, available) + " more files: the kernel allows " + maxMapCount
                    + " memory mappings per process (vm.max_map_count), " + inUse + " are in use and " + JVM_HEADROOM
                    + " are kept for the JVM; pinshard needs at least " + MappingBound.MIN_LIMIT + " for shards. Raise"
                    + " the limit (sysctl -w vm.max_map_count=" + Math.max(262_144, 2 * (inUse + JVM_HEADROOM + shards))
                    + ") or convert into fewer, larger shards (convert --shard-size).");
            }
            return (int) Math.min(limit, shards);
        }
    }
}
