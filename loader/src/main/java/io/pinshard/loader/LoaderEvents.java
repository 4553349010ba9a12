package io.pinshard.loader;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;

/**
 * Publishes every open loader's figures as {@link LoaderStatsEvent}s: one JFR periodic hook for the JVM, run by
 * JFR's own thread only while a recording enables the event, over the loaders opened and not yet closed, each
 * registered as the supplier of its {@link LoaderSnapshot} (null once closed). The hook
 * is added when JFR initialises (at once when it already has): adding it earlier would start JFR's metadata
 * machinery in every JVM that opens a loader (about a second here).
 */
final class LoaderEvents {
    private static final Set<Supplier<LoaderSnapshot>> OPEN = ConcurrentHashMap.newKeySet();

    static {
        FlightRecorder.addListener(new FlightRecorderListener() {
            @Override
            public void recorderInitialized(FlightRecorder recorder) {
                FlightRecorder.addPeriodicEvent(LoaderStatsEvent.class, LoaderEvents::emit);
            }
        });
    }

    private LoaderEvents() {
    }

    /** A loader opened: {@code snapshots} gives its figures until {@link #closed} with the same object. */
    static void opened(Supplier<LoaderSnapshot> snapshots) {
        OPEN.add(snapshots);
    }

    static void closed(Supplier<LoaderSnapshot> snapshots) {
        OPEN.remove(snapshots);
    }

    private static void emit() {
        for (Supplier<LoaderSnapshot> loader : OPEN) {
            LoaderSnapshot snapshot = loader.get();
            if (snapshot == null) {
                continue; // closed between the look-up and the read
            }
            LoaderStatsEvent event = new LoaderStatsEvent();
            LoaderStats stats = snapshot.stats();
            event.loader = snapshot.loader();
            event.epoch = snapshot.epoch();
            event.batchInEpoch = snapshot.batchInEpoch();
            event.images = stats.images();
            event.batches = stats.batches();
            event.imagesPerSecond = stats.imagesPerSecond();
            event.outputBytesPerSecond = stats.megabytesPerSecond() * 1e6;
            event.sourceBytesPerSecond = stats.sourceMegabytesPerSecond() * 1e6;
            event.dataWait = stats.dataWaitPercent() / 100;
            event.workerBusy = stats.workerBusyPercent() / 100;
            event.ringOccupied = snapshot.ringOccupied();
            event.ringSlots = snapshot.ringSlots();
            event.workers = snapshot.workers();
            event.skippedRecords = stats.skippedRecords();
            event.commit();
        }
    }
}
