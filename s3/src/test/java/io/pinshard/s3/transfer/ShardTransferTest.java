package io.pinshard.s3.transfer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.DatasetManifest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The push/pull skeleton: each shard skipped or sent once, counted and reported alike; a failure stops the run. */
class ShardTransferTest {
    private static DatasetManifest manifest(int shards) {
        List<DatasetManifest.ShardEntry> entries = new ArrayList<>();
        long bytes = 0;
        for (int i = 0; i < shards; i++) {
            entries.add(new DatasetManifest.ShardEntry("shard-" + i + ".pinshard", 10, 100 + i, "00000000"));
            bytes += 100 + i;
        }
        return new DatasetManifest(DatasetManifest.FORMAT, DatasetManifest.FORMAT_VERSION, 10L * shards, bytes,
            List.of(), entries, Map.of(), List.of());
    }

    /** Records what the skeleton reports. */
    private static final class Recorded implements TransferProgress {
        final List<String> started = new CopyOnWriteArrayList<>();
        final AtomicLong bytes = new AtomicLong();
        final Map<String, Boolean> done = new ConcurrentHashMap<>();

        @Override
        public void started(int files, long totalBytes, long alreadyBytes) {
            started.add(files + "/" + totalBytes + "/" + alreadyBytes);
        }

        @Override
        public void bytes(long count) {
            bytes.addAndGet(count);
        }

        @Override
        public void fileDone(String file, long bytes, boolean skipped) {
            assertSame(null, done.put(file, skipped), file + " reported twice");
        }
    }

    @Test
    void everyShardIsSkippedOrSentOnceAndCounted() {
        DatasetManifest manifest = manifest(9);
        Recorded progress = new Recorded();
        Set<Integer> sent = ConcurrentHashMap.newKeySet();
        ShardTransfer.Tally tally = ShardTransfer.run(manifest, 3, "test-transfer", "test", progress,
            new ShardTransfer.Direction() {
                @Override
                public boolean inPlace(int position, DatasetManifest.ShardEntry entry) {
                    return position % 3 == 0;
                }

                @Override
                public void send(int position, DatasetManifest.ShardEntry entry) {
                    assertTrue(sent.add(position), "sent twice: " + position);
                }
            });
        assertEquals(Set.of(1, 2, 4, 5, 7, 8), sent);
        assertEquals(6, tally.sent.get());
        assertEquals(3, tally.skipped.get());
        assertEquals(100 + 103 + 106, tally.skippedBytes.get());
        assertEquals(manifest.bytes() - tally.skippedBytes.get(), tally.sentBytes.get());
        assertEquals(List.of("9/" + manifest.bytes() + "/0"), progress.started);
        assertEquals(tally.skippedBytes.get(), progress.bytes.get(), "skipped shards count as bytes done; a sent "
            + "shard's bytes are the direction's to report as they move");
        assertEquals(9, progress.done.size());
        assertEquals(3, progress.done.values().stream().filter(skipped -> skipped).count());
    }

    @Test
    void theFirstFailureStopsTheRunAndIsRethrown() {
        TransferException failure = assertThrows(TransferException.class, () -> ShardTransfer.run(manifest(40), 1,
            "test-transfer", "test", TransferProgress.NONE, new ShardTransfer.Direction() {
                @Override
                public boolean inPlace(int position, DatasetManifest.ShardEntry entry) {
                    return false;
                }

                @Override
                public void send(int position, DatasetManifest.ShardEntry entry) {
                    if (position == 2) {
                        throw new TransferException(entry.file() + ": refused");
                    }
                }
            }));
        assertEquals("shard-2.pinshard: refused", failure.getMessage());
    }
}
