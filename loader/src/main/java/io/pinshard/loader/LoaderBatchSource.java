package io.pinshard.loader;

import io.pinshard.loader.ring.Batch;
import io.pinshard.memory.HostBatch;
import io.pinshard.memory.HostBatchSource;

/**
 * Feeds one epoch of a {@link Loader} to a device pipeline (cuda-bridge's {@code DeviceBatchStream}) through
 * pinshard-memory's {@link HostBatchSource}, the hand-off API the reader implements and the cuda-bridge consumes:
 * each loader {@link io.pinshard.loader.ring.Batch} is seen as a {@link HostBatch} through a view kept per ring slot, so nothing is
 * allocated per batch. The pipeline closes each
 * loader batch once its copy to the device has completed. Give the loader page-locked slots for real asynchronous
 * copies: {@code LoaderOptions.builder().allocator(backend.hostAllocator())}.
 */
public final class LoaderBatchSource implements HostBatchSource {
    private Epoch epoch;
    private final int slots;
    private final SlotView[] views;

    /** @param epoch the epoch to read, or {@code null} until {@link #epoch(Epoch)} names one */
    public LoaderBatchSource(Loader loader, Epoch epoch) {
        if (loader.slots() < 2) {
            throw new IllegalArgumentException("the loader needs at least 2 ring slots (prefetch >= 2) to feed a device"
                + " pipeline: one batch is copied while the next is filled");
        }
        this.epoch = epoch;
        this.slots = loader.slots();
        this.views = new SlotView[slots];
        for (int i = 0; i < slots; i++) {
            views[i] = new SlotView();
        }
    }

    /** Re-aims this source at another epoch of the same loader (with {@code DeviceBatchStream.restart}). */
    public LoaderBatchSource epoch(Epoch next) {
        if (next == null) {
            throw new IllegalArgumentException("epoch is required");
        }
        epoch = next;
        return this;
    }

    @Override
    public HostBatch next() {
        if (epoch == null) {
            throw new IllegalStateException("no epoch to read: call epoch(loader.epoch(n)) first");
        }
        if (!epoch.hasNext()) {
            return null;
        }
        Batch batch = epoch.next();
        return views[batch.slot()].view(batch);
    }

    @Override
    public int maxUnreleasedBeforeNext() {
        return slots - 1;
    }

    /** A loader batch as a host batch; re-aimed each time its slot comes round. */
    private static final class SlotView implements HostBatch {
        private Batch batch;

        SlotView view(Batch loaderBatch) {
            batch = loaderBatch;
            return this;
        }

        @Override
        public int size() {
            return batch.size();
        }

        @Override
        public int height() {
            return batch.crop();
        }

        @Override
        public int width() {
            return batch.crop();
        }

        @Override
        public int channels() {
            return 3;
        }

        @Override
        public long imagesAddress() {
            return batch.address();
        }

        @Override
        public long labelsAddress() {
            return batch.labelsAddress();
        }

        @Override
        public long sampleId(int index) {
            return batch.sampleId(index);
        }

        @Override
        public int epoch() {
            return batch.epoch();
        }

        @Override
        public void release() {
            batch.close();
        }
    }
}
