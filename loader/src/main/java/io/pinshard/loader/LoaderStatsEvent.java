package io.pinshard.loader;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Frequency;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Percentage;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;

/**
 * JFR event: one open loader's figures, emitted by JFR's periodic-event thread (every second by default) for each
 * open loader while a recording enables {@value #NAME}. Nothing runs, and nothing is allocated, on the trainer's
 * or the workers' threads: the figures are the counters {@link Loader#stats()} reads.
 */
@Name(LoaderStatsEvent.NAME)
@Label("Loader Statistics")
@Category({"pinshard", "Loader"})
@Description("Throughput, data wait, worker busy, ring occupancy, skipped records and position of a pinshard loader")
@StackTrace(false)
@Period("1 s")
final class LoaderStatsEvent extends Event {
    static final String NAME = "io.pinshard.LoaderStatistics";

    @Label("Loader")
    String loader;

    @Label("Epoch")
    @Description("Epoch being delivered, -1 before the first")
    int epoch;

    @Label("Batch In Epoch")
    @Description("Batches of the epoch handed out so far")
    long batchInEpoch;

    @Label("Images")
    long images;

    @Label("Batches")
    long batches;

    @Label("Images Per Second")
    @Frequency
    double imagesPerSecond;

    @Label("Output Rate")
    @DataAmount(DataAmount.BYTES)
    @Frequency
    double outputBytesPerSecond;

    @Label("Source Read Rate")
    @DataAmount(DataAmount.BYTES)
    @Frequency
    double sourceBytesPerSecond;

    @Label("Data Wait")
    @Description("Share of the trainer's step time spent blocked in next()")
    @Percentage
    double dataWait;

    @Label("Worker Busy")
    @Percentage
    double workerBusy;

    @Label("Ring Occupied Slots")
    @Description("Slots holding samples: being filled, ready, or held by the trainer")
    int ringOccupied;

    @Label("Ring Slots")
    int ringSlots;

    @Label("Workers")
    int workers;

    @Label("Skipped Records")
    long skippedRecords;
}
