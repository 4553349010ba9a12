package io.pinshard.reader;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.ManifestRules;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Shards mapped on first use and let go again: a streamed dataset's ({@link ShardSource#acquire} fetches and
 * verifies the file first, {@link #evict} lets the source's cache delete it), or a local dataset's with more shards
 * than this process should map at once (a {@link MappingBound}: the least recently used shard without a reader
 * inside is unmapped to make room). Each shard has its own read guard: unmapping waits for the reads inside that
 * shard, and a read that finds its shard unmapped maps it again, so no read ever touches an unmapped shard.
 */
final class ShardsOnDemand implements ShardMappings {
    private final ShardSource source;
    /** The mapping count's bound, or null: unbounded (the source's cache limit is the prefetcher's to keep). */
    private final MappingBound bound;
    private final boolean checkIndexCrc;
    private final String location;
    private final DatasetManifest manifest;
    private final RecordLimits limits;
    private final int[] expectedNumbers;
    private final AtomicReferenceArray<MappedShard> mapped;
    /** Per shard: held while it is mapped or let go, the fetch included, so a source's hold and a mapping agree. */
    private final Object[] shardLocks;
    private final ReadGuard guard;
    private final LargestSizes sizes;
    /** Told around each mapping of a streamed shard (the prefetcher's room-making), or null. */
    private volatile MapListener listener;

    ShardsOnDemand(ShardSource source, MappingBound bound, boolean checkIndexCrc, ReadGuard guard, LargestSizes sizes) {
        this.source = source;
        this.bound = bound;
        this.checkIndexCrc = checkIndexCrc;
        this.location = source.location();
        this.manifest = source.manifest();
        this.limits = RecordLimits.of(manifest);
        this.expectedNumbers = ManifestRules.expectedShardNumbers(manifest.shards());
        this.mapped = new AtomicReferenceArray<>(manifest.shards().size());
        this.shardLocks = new Object[manifest.shards().size()];
        Arrays.setAll(shardLocks, i -> new Object());
        this.guard = guard;
        this.sizes = sizes;
    }

    @Override
    public MappedShard shard(int index) {
        if (bound != null) {
            bound.used(index);
        }
        MappedShard shard = mapped.get(index);
        return shard != null ? shard : load(index);
    }

    /**
     * Maps shard {@code index} unless it is mapped: the source makes it local first (blocking), and the mapped shard
     * is checked like every shard at open (structure, index entries against the dataset's limits, record count and
     * shard number against the manifest).
     */
    private MappedShard load(int index) {
        if (guard.isClosed()) {
            throw guard.closedException();
        }
        MapListener told = listener;
        if (told == null) {
            return loadLocked(index);
        }
        told.beforeMap(index); // outside the shard's lock: it may evict other shards
        try {
            return loadLocked(index);
        } finally {
            told.afterMap(index);
        }
    }

    private MappedShard loadLocked(int index) {
        // Under the shard's lock, the download included: the source's hold and the mapping come and go together
        // (an eviction releases the hold only while no mapping exists), and threads wanting one shard wait for it.
        synchronized (shardLocks[index]) {
            MappedShard shard = mapped.get(index);
            if (shard != null) {
                return shard;
            }
            if (guard.isClosed()) {
                throw guard.closedException();
            }
            shard = mapChecked(index);
            sizes.grow(shard);
            mapped.set(index, shard); // after grow: a reader that finds the shard sees its sizes
            return shard;
        }
    }

    /**
     * Under the shard's lock: reserves a mapping within the bound, has the source make shard {@code index} local,
     * maps it and checks it against the manifest. A remote copy that fails (its cached file damaged since it was
     * installed) is dropped and fetched again, once ({@link ShardSource#discard}).
     */
    private MappedShard mapChecked(int index) {
        DatasetManifest.ShardEntry entry = manifest.shards().get(index);
        for (;;) {
            if (bound != null) {
                synchronized (bound) {
                    bound.reserve(index, this::tryEvict);
                }
            }
            Path file;
            try {
                file = source.acquire(index); // what it throws names the shard; fetching again is the source's call
            } catch (RuntimeException | Error e) {
                letGo(index);
                throw e;
            }
            MappedShard shard = null;
            try {
                shard = MappedShard.open(file, location, checkIndexCrc, limits);
                ManifestMatch.check(location, entry, expectedNumbers[index], shard);
                return shard;
            } catch (ShardFormatException e) {
                if (shard != null) {
                    shard.close();
                }
                if (source.local() || e.kind() == Kind.IO_ERROR) {
                    letGo(index);
                    throw e;
                }
                if (bound != null) {
                    synchronized (bound) {
                        bound.cancel(index);
                    }
                }
                if (!source.discard(index)) {
                    throw fetchedAgainAndFailed(index, e);
                }
            } catch (RuntimeException | Error e) {
                if (shard != null) {
                    shard.close();
                }
                letGo(index);
                throw e;
            }
        }
    }

    /** The holds on shard {@code index} a failed load took: the source's, and the bound's reserved mapping. */
    private void letGo(int index) {
        source.release(index);
        if (bound != null) {
            synchronized (bound) {
                bound.cancel(index);
            }
        }
    }

    /** Under the bound's monitor: unmaps {@code index} unless a reader is inside it (or it is being mapped). */
    private boolean tryEvict(int index) {
        MappedShard shard = mapped.get(index);
        if (shard == null || !shard.tryClose()) {
            return false;
        }
        mapped.compareAndSet(index, shard, null); // a reader that found it closed maps it again
        source.release(index);
        return true;
    }

    @Override
    public RecordView record(Dataset owner, int index, long inShard, long globalRecord, RecordView view) {
        for (;;) {
            MappedShard shard = shard(index);
            ReadGuard shardGuard = shard.guard();
            if (shardGuard.tryAcquire()) { // false: evicted since we looked it up; map it again
                try {
                    return view.wrap(shardGuard, owner, shard, inShard, globalRecord);
                } finally {
                    shardGuard.release();
                }
            }
        }
    }

    @Override
    public RecordView pin(Dataset owner, int index, long inShard, long globalRecord, RecordView view) {
        view.unpin(); // before mapping: a thread waiting for a mapping must not hold one that could make room
        for (;;) {
            MappedShard shard = shard(index);
            ReadGuard shardGuard = shard.guard();
            if (shardGuard.tryAcquire()) { // false: evicted since we looked it up; map it again
                try {
                    // The pin keeps the shard mapped; the view's own reads take the dataset's guard, which an
                    // eviction does not close (a closing shard guard would refuse them while the pin is held).
                    view.wrap(guard, owner, shard, inShard, globalRecord);
                } catch (RuntimeException | Error e) {
                    shardGuard.release();
                    throw e;
                }
                view.pinned(shardGuard);
                return view;
            }
        }
    }

    @Override
    public boolean listener(MapListener listener) {
        if (bound != null) {
            return false;
        }
        this.listener = listener;
        return true;
    }

    @Override
    public boolean isMapped(int index) {
        return mapped.get(index) != null;
    }

    /** Without a bound (which chooses what to unmap itself): unmaps, then lets the source's hold go. */
    @Override
    public boolean evict(int index) {
        if (bound != null) {
            return false;
        }
        MappedShard shard;
        synchronized (shardLocks[index]) {
            shard = mapped.getAndSet(index, null);
        }
        if (shard == null) {
            return false;
        }
        shard.close(); // waits for the reads inside it
        synchronized (shardLocks[index]) {
            if (mapped.get(index) == null) {
                source.release(index);
            }
        }
        return true;
    }

    @Override
    public ShardFormatException refetchCorrupt(int index, MappedShard failed, ShardFormatException found) {
        if (source.local() || found.kind() == Kind.IO_ERROR) {
            return found;
        }
        boolean again;
        synchronized (shardLocks[index]) {
            if (mapped.get(index) != failed) {
                // Dropped already, by another reader that found it (or evicted): read the record again, from the
                // copy mapped next; should that fail too, its reader drops it and is told no.
                return null;
            }
            mapped.set(index, null);
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

    @Override
    public int mappingLimit() {
        return bound == null ? Integer.MAX_VALUE : bound.limit();
    }

    @Override
    public int mappedPeak() {
        if (bound == null) {
            return 0;
        }
        synchronized (bound) {
            return bound.peak();
        }
    }

    /** Empties every slot (a load in progress sees the dataset closed and maps nothing). */
    @Override
    public MappedShard[] takeAll() {
        MappedShard[] all = new MappedShard[mapped.length()];
        for (int i = 0; i < all.length; i++) {
            synchronized (shardLocks[i]) {
                all[i] = mapped.getAndSet(i, null);
            }
        }
        return all;
    }
}
