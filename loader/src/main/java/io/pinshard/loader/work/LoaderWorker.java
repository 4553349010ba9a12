package io.pinshard.loader.work;

import io.pinshard.format.ShardFormatException;
import io.pinshard.loader.options.ErrorPolicy;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.ring.Batch;
import io.pinshard.loader.ring.BatchRing;
import io.pinshard.loader.ring.BatchRingDescriptor;
import io.pinshard.loader.sample.EpochPlan;
import io.pinshard.loader.sample.SplitMix;
import io.pinshard.memory.BatchMemoryAllocator;
import io.pinshard.memory.HeapCounter;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.MappedShard;
import io.pinshard.reader.ReadGuard;
import io.pinshard.reader.RecordView;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.BackoffIdleStrategy;

/**
 * One persistent worker thread of a loader, alive from the loader's first epoch to its close. Between runs
 * it rests (backs off, then parks until the loader unparks it). In a run ({@link LoaderRun}) it claims the
 * next sample ticket, waits until the ticket's epoch may be filled and the slot of its batch is open, decodes
 * and crops the record into it and counts it, epoch after epoch. Claims are in ticket order, so slots open in
 * the order workers need them and no claim can wait on a later one. An epoch resumed on another world size
 * has tickets for places past the end of its short batches: those are skipped, before any wait.
 */
public final class LoaderWorker implements Runnable {
    private static final int MAX_REPLACEMENTS = 16;
    /**
     * Rests that spin or yield (the backoff's first 64 + 16) before parking until unparked. Everything a rest
     * waits for (a start, the consumer moving on, a stop, close) unparks the workers, so the backoff's own
     * ladder of short parks would only burn a syscall each (one such wait per epoch on a small dataset).
     */
    private static final int BACKOFF_RESTS = 64 + 16;
    /** Longest park: a dataset closed under an idle loader is noticed within this (nothing unparks it). */
    private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final int index;
    private final Dataset dataset;
    // The options this worker reads, from four groups, taken once here: the sample loop reads only these fields.
    private final int batchSize;
    private final long seed;
    private final ErrorPolicy errorPolicy;
    /** Where the slots live: shared with other processes (a serve ring), it can be damaged under the worker. */
    private final BatchMemoryAllocator slotMemory;
    /** Whether batches carry record fields: the image path skips the field copy entirely without. */
    private final boolean carriesFields;
    private final EpochPlan plan;
    private final BatchRing ring;
    private final SampleProcessor processor;
    private final RecordView view;
    private final LoaderRun run;
    private final LoaderControl control;
    private final BackoffIdleStrategy idle = new BackoffIdleStrategy(64, 16, 1_000, 200_000);
    private long lastRecord = -1;
    private long heapMark;
    private int rests;
    /** The last generation this worker has left (0: none yet), published to {@link LoaderControl#workerLeft}. */
    private long leftGeneration;

    public LoaderWorker(int index, Dataset dataset, LoaderOptions options, EpochPlan plan, BatchRing ring,
                 SampleProcessor processor, RecordView view, LoaderRun run, LoaderControl control) {
        this.index = index;
        this.control = control;
        this.dataset = dataset;
        this.batchSize = options.sampling().batchSize();
        this.seed = options.sampling().seed();
        this.errorPolicy = options.policy().errorPolicy();
        this.slotMemory = options.ring().allocator();
        this.carriesFields = options.augment().fields().count() > 0;
        this.plan = plan;
        this.ring = ring;
        this.processor = processor;
        this.view = view;
        this.run = run;
    }

    @Override
    public void run() {
        heapMark = HeapCounter.currentThreadAllocatedBytes();
        try {
            for (long generation = awaitRun(); generation > 0; generation = awaitRun()) {
                work();
                left(generation);
            }
        } finally {
            countHeap();
        }
    }

    /**
     * Rests until a new generation starts; 0 when the thread should end: the loader is closing, or its
     * dataset was closed (no epoch can start any more).
     */
    private long awaitRun() {
        countHeap();
        rests = 0;
        idle.reset();
        while (true) {
            if (control.terminating() || dataset.isClosed()) {
                return 0;
            }
            long generation = run.generation();
            if (generation > leftGeneration) {
                if (!run.stopping()) {
                    return generation;
                }
                // Started and stopped while this worker rested: nothing to leave but the mark. No later
                // generation can start before this mark, so the stop seen is this generation's.
                left(generation);
            }
            rest();
        }
    }

    /** This worker is outside generation {@code generation}: it touches neither the ring nor the plan. */
    private void left(long generation) {
        leftGeneration = generation;
        control.workerLeft(index, generation);
    }

    /** Spins and yields briefly, then parks until the loader unparks this thread (an epoch start, a stop, close). */
    private void rest() {
        if (rests < BACKOFF_RESTS) {
            rests++;
            idle.idle();
        } else {
            LockSupport.parkNanos(this, MAX_PARK_NANOS);
        }
    }

    /** Fills samples of the current run until it stops, or fails at or before the ticket in hand. */
    private void work() {
        int batchSize = this.batchSize; // in a local, as the slot count: the loop reads both per sample
        int slots = ring.slots();
        int segment = 0;
        try {
            while (!run.stopping()) {
                long ticket = ring.claimTicket();
                segment = run.segmentOf(ticket);
                if (!awaitSegment(segment, ticket)) {
                    return;
                }
                long local = ticket - run.ticketBase(segment);
                long inSegment = local / batchSize;
                int inBatch = (int) (local - inSegment * batchSize);
                long batch = run.firstBatch(segment) + inSegment;
                int samples = run.samplesIn(segment, batch);
                if (inBatch >= samples) {
                    continue; // a place past the end of a short batch of a resized epoch
                }
                long sequence = run.sequenceBase(segment) + inSegment;
                int slot = (int) (sequence % slots);
                if (!ring.awaitOpen(slot, sequence, idle, run, segment)) {
                    return;
                }
                long started = System.nanoTime();
                int record = plan.recordAt(segment & 1, batch * batchSize + inBatch);
                fill(ring.batch(slot), inBatch, record, run.epochOf(segment));
                ring.addWorkerCounter(index, BatchRingDescriptor.WORKER_BUSY_NANOS_OFFSET, System.nanoTime() - started);
                ring.addWorkerCounter(index, BatchRingDescriptor.WORKER_SAMPLES_OFFSET, 1);
                countHeap();
                if (ring.sampleWritten(slot) == samples) {
                    control.batchFilled(); // wakes a consumer parked on it now rather than at its next poll
                }
            }
        } catch (InternalError fault) { // a guarded access that faulted, reported late: the slot memory's, or a shard's
            RuntimeException slotMemory = slotMemoryDamage();
            int shard = lastRecord >= 0 ? dataset.shardOf(lastRecord) : -1;
            run.fail(slotMemory != null ? slotMemory : RecordView.changedWhileMapped(dataset.location(),
                shard >= 0 ? dataset.manifest().shards().get(shard).file() : null, // the name: no mapping, no check
                shard >= 0 ? lastRecord - dataset.firstRecordOf(shard) : -1, fault), segment);
        } catch (Throwable failure) {
            run.fail(failure, segment);
        }
    }

    /**
     * Waits until the workers may fill {@code segment} (the consumer is on the epoch before it, or on it) and
     * its order is prepared; the worker holding its first ticket prepares it, off the consumer's path. False
     * when the run stopped or failed at or before it.
     */
    private boolean awaitSegment(int segment, long ticket) {
        rests = 0;
        idle.reset();
        while (!run.permits(segment)) { // the consumer is still two epochs behind: rest until it moves on
            if (run.abandons(segment) || control.terminating()) {
                return false;
            }
            rest();
        }
        if (run.prepared() >= segment) {
            return true;
        }
        if (ticket == run.ticketBase(segment)) {
            // Segment - 2, which used this buffer, is consumed: the consumer moved on to segment - 1.
            plan.prepare(segment & 1, run.epochOf(segment));
            run.prepared(segment);
            return true;
        }
        idle.reset();
        while (run.prepared() < segment) {
            if (run.abandons(segment)) {
                return false;
            }
            idle.idle();
        }
        return true;
    }

    /**
     * Why the batch memory can no longer be written (another process truncated or overwrote the ring it is), or
     * null. A fault of a guarded write into a slot surfaces a little later, often in the next sample's guarded
     * reads, where it looks like the shard's: every fault is checked against the slot memory first.
     */
    private RuntimeException slotMemoryDamage() {
        RuntimeException damage = slotMemory.sharedWithOtherProcesses() ? slotMemory.damaged() : null;
        if (damage != null) {
            ReadGuard.mappingFaulted(); // the late error may have left a guard count behind: closes must not wait on it
        }
        return damage;
    }

    /** Adds the heap this thread allocated since the last count to its counter. */
    private void countHeap() {
        long now = HeapCounter.currentThreadAllocatedBytes();
        if (now >= 0 && heapMark >= 0) {
            ring.addWorkerCounter(index, BatchRingDescriptor.WORKER_HEAP_BYTES_OFFSET, now - heapMark);
        }
        heapMark = now;
    }

    /**
     * Decodes {@code record} (or its replacements) into image {@code inBatch} of the slot. Every read of the
     * dataset's mapped memory is bracketed by {@link Dataset#acquire()}/{@link Dataset#release()}, so closing
     * the dataset waits for it, and a closed dataset fails the run with an exception naming it.
     */
    private void fill(Batch batch, int inBatch, int record, int epoch) {
        long destination = batch.slotImageAddress(inBatch);
        for (int attempt = 0; ; attempt++) {
            lastRecord = record;
            ShardFormatException failure;
            MappedShard corruptShard = null;
            dataset.acquire();
            try {
                dataset.pin(record, view); // a streamed dataset keeps the shard mapped until unpin
                try {
                    int bytes = processor.process(view, SplitMix.mix(seed, epoch, record), destination);
                    if (carriesFields) {
                        processor.copyFields(view, batch, inBatch);
                    }
                    batch.putLabel(inBatch, view.label());
                    batch.putSampleId(inBatch, record);
                    ring.addWorkerCounter(index, BatchRingDescriptor.WORKER_PAYLOAD_BYTES_OFFSET, bytes);
                    return;
                } catch (ShardFormatException corrupt) {
                    throwIfSlotMemoryDamaged();
                    failure = corrupt;
                    corruptShard = view.shard();
                } finally {
                    view.unpin();
                }
            } catch (ShardFormatException unavailable) {
                // A shard that cannot be fetched or mapped, or whose index fails its checks at its first use.
                throwIfSlotMemoryDamaged();
                failure = unavailable;
            } finally {
                dataset.release();
            }
            if (corruptShard != null) {
                // A streamed shard's cached copy is dropped and the record read again from a new one, once.
                failure = dataset.refetchCorrupt(dataset.shardOf(record), corruptShard, failure);
                if (failure == null) {
                    attempt--;
                    continue;
                }
            }
            if (errorPolicy == ErrorPolicy.FAIL || attempt == MAX_REPLACEMENTS) {
                throw failure;
            }
            batch.addSkipped(); // counted in the statistics when the batch is handed out
            record = replacement(seed, epoch, record, attempt);
        }
    }

    private void throwIfSlotMemoryDamaged() {
        RuntimeException slotMemory = slotMemoryDamage();
        if (slotMemory != null) {
            throw slotMemory;
        }
    }

    /** The record that stands in for a corrupt one: a function of (seed, epoch, record, attempt) only. */
    private int replacement(long seed, int epoch, int record, int attempt) {
        return (int) Long.remainderUnsigned(SplitMix.mix(SplitMix.mix(seed, epoch), record, attempt + 1L),
            plan.records());
    }
}
