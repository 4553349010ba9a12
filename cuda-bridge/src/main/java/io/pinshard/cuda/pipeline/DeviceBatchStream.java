package io.pinshard.cuda.pipeline;

import io.pinshard.cuda.device.DeviceType;
import io.pinshard.cuda.monitor.GpuUtilization;
import io.pinshard.datawait.DataWaitMonitor;
import io.pinshard.memory.HostBatch;
import io.pinshard.memory.HostBatchSource;

/**
 * The trainer's loop over device batches: pulls host batches from a {@link HostBatchSource} and keeps up to
 * {@code prefetch} of them in flight to the device ahead of the one the trainer holds, so copies and augmentation
 * overlap the trainer's step. Measures data-wait for the device batch: the time {@link #next()} blocks (on the loader,
 * on a slot) plus time in {@link DeviceBatch#awaitReady()}, per step, in {@link #stats()} and in a
 * {@link DataWaitMonitor} that logs one warning when the wait exceeds 10 % of step time (the loader's own monitor
 * covers host batches only). Single consumer thread; zero heap allocation per batch.
 */
public final class DeviceBatchStream implements AutoCloseable {
    private HostBatchSource source;
    private final DeviceBatchPipeline pipeline;
    private final int prefetch;
    private final DeviceBatch[] queue;
    private int queueHead;
    private int queued;
    private boolean exhausted;
    private long sourceWaitNanos;
    private long stepNanos;
    private long lastReturn;
    private long readyWaitAtLastReturn;
    private final DataWaitMonitor dataWait;
    private final GpuUtilization gpuUtilization;

    /**
     * @param prefetch batches in flight ahead of the trainer, 1 to {@code ringSize - 1} (the trainer holds one)
     */
    public DeviceBatchStream(HostBatchSource source, DeviceBatchPipeline pipeline, int prefetch) {
        this(source, pipeline, prefetch, defaultDataWaitMonitor());
    }

    /** As above, with the caller's data-wait guard (e.g. one that never warns, for a benchmark without a trainer). */
    public DeviceBatchStream(HostBatchSource source, DeviceBatchPipeline pipeline, int prefetch,
                             DataWaitMonitor dataWait) {
        if (source == null || pipeline == null || dataWait == null) {
            throw new IllegalArgumentException("source, pipeline and data-wait monitor are required");
        }
        int ring = pipeline.options().ringSize();
        if (prefetch < 1 || prefetch > ring - 1) {
            throw new IllegalArgumentException("prefetch must be 1 to ringSize - 1 = " + (ring - 1) + ": " + prefetch);
        }
        this.source = source;
        this.pipeline = pipeline;
        this.prefetch = prefetch;
        this.queue = new DeviceBatch[prefetch];
        this.dataWait = dataWait;
        // The data-wait warning says how busy the GPU was, or why it cannot (host backend, no NVML).
        if (pipeline.backend().deviceType() == DeviceType.CUDA) {
            this.gpuUtilization = GpuUtilization.attach(dataWait, pipeline.backend().deviceId());
        } else {
            this.gpuUtilization = null;
            dataWait.warningContext(() -> "no GPU utilisation: device batches on the " + pipeline.backend().name()
                + " backend");
        }
    }

    /** Warns once when waiting for device batches exceeds 10 % of step time over 50 steps (after 5 warm-up steps). */
    public static DataWaitMonitor defaultDataWaitMonitor() {
        return new DataWaitMonitor("device batches (loader, copy to the device, augmentation)",
            "more loader workers, raw shards, page-locked loader slots (LoaderOptions.allocator(backend.hostAllocator())),"
                + " or a deeper device prefetch", 0.10, 50, 5);
    }

    /**
     * The next device batch in loader order, {@code null} at the end of the epoch. Close (release) each batch when
     * done with it; holding more than {@code ringSize - prefetch} at once stalls prefetching.
     */
    public DeviceBatch next() {
        long entered = System.nanoTime();
        if (lastReturn != 0) {
            stepNanos += entered - lastReturn;
        }
        fill();
        if (queued == 0) {
            if (!exhausted) {
                throw new IllegalStateException("every device slot is held by the trainer: close() device batches");
            }
            lastReturn = 0;
            return null;
        }
        DeviceBatch batch = queue[queueHead];
        queue[queueHead] = null;
        queueHead = (queueHead + 1) % queue.length;
        queued--;
        // Refill behind the batch being handed out so the next copies start during the trainer's step.
        fill();
        long now = System.nanoTime();
        long readyWait = pipeline.readyWaitNanos();
        dataWait.record(now - entered + readyWait - readyWaitAtLastReturn, now);
        readyWaitAtLastReturn = readyWait;
        lastReturn = now;
        return batch;
    }

    private void fill() {
        while (!exhausted && queued < prefetch && pipeline.canSubmit()) {
            while (pipeline.hostBatchesInFlight() > 0
                && pipeline.hostBatchesInFlight() >= source.maxUnreleasedBeforeNext()) {
                pipeline.awaitOldestCopy(); // the loader needs a free slot before it can hand out another batch
            }
            long start = System.nanoTime();
            HostBatch host = source.next();
            sourceWaitNanos += System.nanoTime() - start;
            if (host == null) {
                exhausted = true;
                return;
            }
            DeviceBatch batch;
            try {
                batch = pipeline.submit(host);
            } catch (RuntimeException e) {
                host.release(); // submit leaves a rejected batch with the caller: give it back before failing
                throw e;
            }
            queue[(queueHead + queued) % queue.length] = batch;
            queued++;
        }
        pipeline.pollCopies();
    }

    /**
     * Continues with a new source (the next epoch) once this one is exhausted, keeping the statistics and the
     * data-wait guard, and allocating nothing per batch.
     *
     * @throws IllegalStateException when batches of the current source are still queued or not yet pulled
     */
    public void restart(HostBatchSource next) {
        if (next == null) {
            throw new IllegalArgumentException("source is required");
        }
        if (!exhausted || queued > 0) {
            throw new IllegalStateException("the current source still has batches: take them all (next() == null) first");
        }
        source = next;
        exhausted = false;
        lastReturn = 0;
    }

    /** Pipeline counters plus the time blocked on the loader and the trainer's step time. */
    public PipelineStats stats() {
        PipelineStats p = pipeline.stats();
        return new PipelineStats(p.batches(), p.images(), p.bytesCopied(), sourceWaitNanos, p.slotWaitNanos(),
            p.readyWaitNanos(), p.notReadyAtHandOff(), stepNanos);
    }

    /** The data-wait guard for device batches (figures readable from any thread). */
    public DataWaitMonitor dataWait() {
        return dataWait;
    }

    /** Closes the pipeline (which releases pending host batches); the source is the caller's. */
    @Override
    public void close() {
        if (gpuUtilization != null) {
            gpuUtilization.close();
        }
        pipeline.close();
    }
}
