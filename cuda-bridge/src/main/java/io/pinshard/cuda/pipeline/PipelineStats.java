package io.pinshard.cuda.pipeline;

/**
 * Counters of a {@link DeviceBatchPipeline} / {@link DeviceBatchStream}, a snapshot. Data-wait is time the trainer's
 * thread was blocked for data: waiting for the loader's next host batch, for a device slot to become reusable, or in
 * {@link DeviceBatch#awaitReady()}. Step time is the time the trainer spent between its calls for the next batch.
 *
 * @param batches          device batches submitted (copies enqueued)
 * @param images           images in them
 * @param bytesCopied      host-to-device bytes enqueued
 * @param sourceWaitNanos  blocked in the loader's {@code next()}
 * @param slotWaitNanos    blocked until a slot's previous copy had completed
 * @param readyWaitNanos   blocked in {@link DeviceBatch#awaitReady()}
 * @param notReadyAtHandOff batches whose ready event had not been reached when handed out (the trainer's stream waits)
 * @param stepNanos        trainer time between {@link DeviceBatchStream#next()} calls
 */
public record PipelineStats(long batches, long images, long bytesCopied, long sourceWaitNanos, long slotWaitNanos,
                            long readyWaitNanos, long notReadyAtHandOff, long stepNanos) {
    public long dataWaitNanos() {
        return sourceWaitNanos + slotWaitNanos + readyWaitNanos;
    }

    /** Data-wait as a percentage of data-wait plus step time (0 when nothing was measured). */
    public double dataWaitPercent() {
        long total = dataWaitNanos() + stepNanos;
        return total == 0 ? 0 : 100.0 * dataWaitNanos() / total;
    }
}
