package io.pinshard.reader;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.ManifestRules;
import io.pinshard.format.ShardFormatException;
import java.util.List;
import org.agrona.CloseHelper;

/**
 * Every shard of a local dataset mapped at open, its frame checked then (O(shards)) and its index on its first use
 * ({@link MappedShard#checkIndex}, before any of its records is served). Reads go through the dataset's own guard:
 * nothing is unmapped before the dataset closes.
 */
final class ShardsMappedAtOpen implements ShardMappings {
    private final MappedShard[] shards;
    private final ReadGuard guard;
    private final LargestSizes sizes;

    private ShardsMappedAtOpen(MappedShard[] shards, ReadGuard guard, LargestSizes sizes) {
        this.shards = shards;
        this.guard = guard;
        this.sizes = sizes;
    }

    /**
     * Maps every shard {@code source} serves (each a local file) with {@code opener} and checks it against its
     * manifest entry; on any failure unmaps what it mapped.
     */
    static ShardsMappedAtOpen map(ShardSource source, boolean checkIndexCrc, ShardOpener opener, ReadGuard guard,
                                  LargestSizes sizes) {
        String location = source.location();
        List<DatasetManifest.ShardEntry> entries = source.manifest().shards();
        int[] expectedNumbers = ManifestRules.expectedShardNumbers(entries);
        RecordLimits limits = RecordLimits.of(source.manifest());
        MappedShard[] shards = new MappedShard[entries.size()];
        try {
            for (int i = 0; i < shards.length; i++) {
                shards[i] = opener.open(source.acquire(i), location, checkIndexCrc, limits);
                ManifestMatch.check(location, entries.get(i), expectedNumbers[i], shards[i]);
                sizes.grow(shards[i]);
            }
        } catch (Throwable e) { // checked "Map failed" and Errors too: nothing mapped may outlive a failed open
            CloseHelper.quietCloseAll(shards);
            throw e;
        }
        return new ShardsMappedAtOpen(shards, guard, sizes);
    }

    @Override
    public MappedShard shard(int index) {
        MappedShard shard = shards[index];
        if (!shard.isIndexChecked() && !guard.isClosed()) { // closed: the shard refuses every read anyway
            guard.acquire(); // close() must not unmap under the walk
            try {
                shard.checkIndex();
            } finally {
                guard.release();
            }
            sizes.grow(shard);
        }
        return shard;
    }

    @Override
    public RecordView record(Dataset owner, int index, long inShard, long globalRecord, RecordView view) {
        return view.wrap(owner, shard(index), inShard, globalRecord);
    }

    /** The same as {@link #record}: nothing is unmapped before the dataset closes. */
    @Override
    public RecordView pin(Dataset owner, int index, long inShard, long globalRecord, RecordView view) {
        return record(owner, index, inShard, globalRecord, view);
    }

    @Override
    public boolean isMapped(int index) {
        return true;
    }

    @Override
    public boolean evict(int index) {
        return false;
    }

    /** {@code found}: a local file has no other copy to read instead. */
    @Override
    public ShardFormatException refetchCorrupt(int index, MappedShard failed, ShardFormatException found) {
        return found;
    }

    @Override
    public int mappingLimit() {
        return Integer.MAX_VALUE;
    }

    @Override
    public int mappedPeak() {
        return 0;
    }

    @Override
    public MappedShard[] takeAll() {
        return shards;
    }
}
