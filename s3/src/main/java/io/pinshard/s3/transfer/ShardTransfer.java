package io.pinshard.s3.transfer;

import io.pinshard.format.DatasetManifest;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The skeleton a push and a pull share: every shard of the manifest on the bounded pool ({@link ShardPool}), each
 * either found already in place (skipped) or sent, counted and reported to the progress the same way. What "in
 * place" and "send" mean is the direction's ({@link Direction}); the manifest's own ordering rules stay with each.
 */
final class ShardTransfer {
    /** One direction's per-shard work; called from the pool's threads. */
    interface Direction {
        /** Whether the shard at {@code position} is already where it should be, with the right bytes. */
        boolean inPlace(int position, DatasetManifest.ShardEntry entry);

        /** Sends the shard at {@code position}; throws {@link TransferException} naming it when that fails. */
        void send(int position, DatasetManifest.ShardEntry entry);
    }

    /** What one run moved and skipped. */
    static final class Tally {
        final AtomicInteger sent = new AtomicInteger();
        final AtomicInteger skipped = new AtomicInteger();
        final AtomicLong sentBytes = new AtomicLong();
        final AtomicLong skippedBytes = new AtomicLong();
    }

    private ShardTransfer() {
    }

    /**
     * Runs {@code direction} over every shard of {@code manifest} on at most {@code threads} threads named
     * {@code threadName-N}, reporting to {@code progress}; the first failure stops the rest and is rethrown.
     *
     * @param what the job, for a failure's message ("push to s3://...")
     */
    static Tally run(DatasetManifest manifest, int threads, String threadName, String what, TransferProgress progress,
                     Direction direction) {
        Tally tally = new Tally();
        progress.started(manifest.shards().size(), manifest.bytes(), 0);
        ShardPool.forEach(manifest.shards().size(), threads, threadName, what, position -> {
            DatasetManifest.ShardEntry entry = manifest.shards().get(position);
            if (direction.inPlace(position, entry)) {
                tally.skipped.incrementAndGet();
                tally.skippedBytes.addAndGet(entry.bytes());
                progress.bytes(entry.bytes());
                progress.fileDone(entry.file(), entry.bytes(), true);
                return;
            }
            direction.send(position, entry);
            tally.sent.incrementAndGet();
            tally.sentBytes.addAndGet(entry.bytes());
            progress.fileDone(entry.file(), entry.bytes(), false);
        });
        return tally;
    }
}
