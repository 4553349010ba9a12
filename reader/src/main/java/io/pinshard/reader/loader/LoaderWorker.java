package io.pinshard.reader.loader;

import io.pinshard.format.ShardFormatException;
import io.pinshard.memory.HeapCounter;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import org.agrona.concurrent.BackoffIdleStrategy;

/**
 * One worker thread's loop for one run of an epoch: claim the next sample position, wait for its slot,
 * decode and crop the record into it, count it. Claims are in position order, so slots open in the order
 * workers need them and no claim can wait on a later one.
 */
final class LoaderWorker implements Runnable {
    private static final int MAX_REPLACEMENTS = 16;

    private final int index;
    private final Dataset dataset;
    private final LoaderOptions options;
    private final EpochPlan plan;
    private final BatchRing ring;
    private final SampleProcessor processor;
    private final RecordView view;
    private final Loader.Run run;
    private final BackoffIdleStrategy idle = new BackoffIdleStrategy(64, 16, 1_000, 200_000);
    private long lastRecord = -1;

    LoaderWorker(int index, Dataset dataset, LoaderOptions options, EpochPlan plan, BatchRing ring,
                 SampleProcessor processor, RecordView view, Loader.Run run) {
        this.index = index;
        this.dataset = dataset;
        this.options = options;
        this.plan = plan;
        this.ring = ring;
        this.processor = processor;
        this.view = view;
        this.run = run;
    }

    @Override
    public void run() {
        long heapAtStart = HeapCounter.currentThreadAllocatedBytes();
        try {
            loop();
        } finally {
            long heapAtEnd = HeapCounter.currentThreadAllocatedBytes();
            if (heapAtStart >= 0 && heapAtEnd >= 0) {
                ring.addWorkerCounter(index, BatchRingDescriptor.WORKER_HEAP_BYTES_OFFSET, heapAtEnd - heapAtStart);
            }
        }
    }

    private void loop() {
        int batchSize = options.batchSize();
        int slots = ring.slots();
        long firstPosition = run.startBatch() * batchSize;
        long tickets = plan.batches() * batchSize - firstPosition; // one per place; short batches' spare ones skip
        try {
            while (!run.stopping()) {
                long ticket = ring.claimTicket();
                if (ticket >= tickets) {
                    return;
                }
                int record = plan.recordAt(firstPosition + ticket);
                if (record < 0) {
                    continue; // a place past the end of a short batch
                }
                long sequence = ticket / batchSize;
                int inBatch = (int) (ticket - sequence * batchSize);
                int slot = (int) (sequence % slots);
                if (!ring.awaitOpen(slot, sequence, idle, run)) {
                    return;
                }
                long started = System.nanoTime();
                fill(ring.batch(slot), inBatch, record);
                ring.addWorkerCounter(index, BatchRingDescriptor.WORKER_BUSY_NANOS_OFFSET, System.nanoTime() - started);
                ring.addWorkerCounter(index, BatchRingDescriptor.WORKER_SAMPLES_OFFSET, 1);
                ring.sampleWritten(slot);
            }
        } catch (InternalError fault) { // a guarded read of a changed shard, reported late: name the last record read
            int shard = lastRecord >= 0 ? dataset.shardOf(lastRecord) : -1;
            run.fail(RecordView.changedWhileMapped(dataset.directory().toString(),
                shard >= 0 ? dataset.shard(shard).name() : null,
                shard >= 0 ? lastRecord - dataset.firstRecordOf(shard) : -1, fault));
        } catch (Throwable failure) {
            run.fail(failure);
        }
    }

    /**
     * Decodes {@code record} (or its replacements) into image {@code inBatch} of the slot. Every read of the
     * dataset's mapped memory is bracketed by {@link Dataset#acquire()}/{@link Dataset#release()}, so closing
     * the dataset waits for it, and a closed dataset fails the run with an exception naming it.
     */
    private void fill(Batch batch, int inBatch, int record) {
        long destination = batch.slotImageAddress(inBatch);
        int epoch = run.epoch();
        long seed = options.seed();
        for (int attempt = 0; ; attempt++) {
            lastRecord = record;
            dataset.acquire();
            try {
                dataset.record(record, view);
                try {
                    int bytes = processor.process(view, SplitMix.mix(seed, epoch, record), destination);
                    batch.putLabel(inBatch, view.label());
                    batch.putSampleId(inBatch, record);
                    ring.addWorkerCounter(index, BatchRingDescriptor.WORKER_PAYLOAD_BYTES_OFFSET, bytes);
                    return;
                } catch (ShardFormatException corrupt) {
                    if (options.errorPolicy() == ErrorPolicy.FAIL || attempt == MAX_REPLACEMENTS) {
                        throw corrupt;
                    }
                }
            } finally {
                dataset.release();
            }
            ring.addWorkerCounter(index, BatchRingDescriptor.WORKER_SKIPPED_OFFSET, 1);
            record = replacement(seed, epoch, record, attempt);
        }
    }

    /** The record that stands in for a corrupt one: a function of (seed, epoch, record, attempt) only. */
    private int replacement(long seed, int epoch, int record, int attempt) {
        return (int) Long.remainderUnsigned(SplitMix.mix(SplitMix.mix(seed, epoch), record, attempt + 1L),
            plan.records());
    }
}
