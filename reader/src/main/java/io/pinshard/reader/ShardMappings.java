package io.pinshard.reader;

import io.pinshard.format.ShardFormatException;
import org.agrona.CloseHelper;

/**
 * Where a {@link Dataset}'s shards are mapped and how a read reaches one: every shard mapped at open ({@link
 * ShardsMappedAtOpen}), or each on first use and let go again ({@link ShardsOnDemand}: streamed, or local with more
 * shards than this process should map at once). The dataset holds the records' numbering and its read guard; this
 * holds the mappings. See {@link Dataset} for what each method promises.
 */
interface ShardMappings {
    /** Shard {@code index}, mapped (now, if need be) and its index checked. */
    MappedShard shard(int index);

    /** Points {@code view} at record {@code inShard} of shard {@code index} of {@code owner}. */
    RecordView record(Dataset owner, int index, long inShard, long globalRecord, RecordView view);

    /** Like {@link #record}, and keeps the shard mapped until {@link RecordView#unpin()}. */
    RecordView pin(Dataset owner, int index, long inShard, long globalRecord, RecordView view);

    /** Whether shard {@code index} is mapped now. */
    boolean isMapped(int index);

    /** Unmaps shard {@code index} once the reads inside it left; false when there was nothing to let go. */
    boolean evict(int index);

    /** See {@link Dataset#refetchCorrupt}. */
    ShardFormatException refetchCorrupt(int index, MappedShard failed, ShardFormatException found);

    /** The most shards mapped at once ({@link Integer#MAX_VALUE}: no bound). */
    int mappingLimit();

    /** With a bound, the most shards mapped at once so far (else 0). */
    int mappedPeak();

    /** See {@link Dataset#mapListener}: false when these mappings do not tell one (not streamed). */
    default boolean listener(MapListener listener) {
        return false;
    }

    /** Every mapping, emptied out of this (entries may be null), for the dataset's close to unmap. */
    MappedShard[] takeAll();

    /**
     * At the dataset's close, once its guard closed with {@code outcome}: unmaps every shard, or after a mapping
     * fault ({@link ReadGuard.Outcome#READERS_MAY_REMAIN}) refuses reads and leaves the unmapping to the GC.
     */
    default void unmapAll(ReadGuard.Outcome outcome) {
        MappedShard[] mapped = takeAll();
        switch (outcome) {
            case CLOSED -> CloseHelper.closeAll(mapped);
            case READERS_MAY_REMAIN -> {
                for (MappedShard shard : mapped) {
                    if (shard != null) {
                        shard.abandon();
                    }
                }
            }
            default -> { }
        }
    }
}
