package io.pinshard.loader;

/**
 * Loader throughput since it was opened, over the time epochs were running.
 *
 * @param images            images handed to the trainer
 * @param batches           batches handed to the trainer
 * @param seconds           seconds epochs were running
 * @param imagesPerSecond   images / seconds
 * @param megabytesPerSecond output tensor megabytes (10^6) per second
 * @param sourceMegabytesPerSecond stored payload megabytes read per second
 * @param dataWaitPercent   share of the trainer's step time spent blocked in {@code next()}
 * @param workerBusyPercent share of worker thread time spent working on samples (not waiting for slots)
 * @param skippedRecords    corrupt records replaced under {@link io.pinshard.loader.options.ErrorPolicy#SKIP} in the batches handed out
 *                          (work filled ahead for an epoch that was then not asked for is not counted)
 * @param workerHeapBytes   JVM heap bytes allocated by the worker threads so far, counted after each sample and
 *                          whenever a worker parks (0 where the JVM cannot tell); the zero-heap figure's worker side
 */
public record LoaderStats(long images, long batches, double seconds, double imagesPerSecond,
                          double megabytesPerSecond, double sourceMegabytesPerSecond, double dataWaitPercent,
                          double workerBusyPercent, long skippedRecords,
                          long workerHeapBytes) {
}
