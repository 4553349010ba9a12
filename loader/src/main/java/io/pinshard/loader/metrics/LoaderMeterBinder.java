package io.pinshard.loader.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.pinshard.loader.Loader;
import io.pinshard.loader.LoaderSnapshot;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters over a loader's figures (Micrometer is an optional dependency: add micrometer-core to use
 * this class). Every meter is function-based, read when the registry publishes: the loader does nothing per batch
 * for them, with or without a registry. After the loader closes the meters read NaN (gauges) or their last value.
 *
 * <table>
 *   <caption>Meters (tag {@code loader} = {@link io.pinshard.loader.Loader#name()}, plus the caller's tags)</caption>
 *   <tr><th>name</th><th>type</th><th>base unit</th></tr>
 *   <tr><td>pinshard.loader.images</td><td>function counter</td><td>images</td></tr>
 *   <tr><td>pinshard.loader.batches</td><td>function counter</td><td>batches</td></tr>
 *   <tr><td>pinshard.loader.output</td><td>function counter</td><td>bytes (NHWC uint8 written)</td></tr>
 *   <tr><td>pinshard.loader.source.read</td><td>function counter</td><td>bytes (stored payloads read)</td></tr>
 *   <tr><td>pinshard.loader.skipped.records</td><td>function counter</td><td>records</td></tr>
 *   <tr><td>pinshard.loader.data.wait</td><td>function timer</td><td>seconds (count: steps)</td></tr>
 *   <tr><td>pinshard.loader.step</td><td>function timer</td><td>seconds (count: steps)</td></tr>
 *   <tr><td>pinshard.loader.worker.usage</td><td>gauge</td><td>ratio 0..1 of worker time busy</td></tr>
 *   <tr><td>pinshard.loader.ring.occupied</td><td>gauge</td><td>slots</td></tr>
 *   <tr><td>pinshard.loader.ring.slots</td><td>gauge</td><td>slots</td></tr>
 *   <tr><td>pinshard.loader.workers</td><td>gauge</td><td>threads</td></tr>
 *   <tr><td>pinshard.loader.epoch</td><td>gauge</td><td>epoch last started (-1 before)</td></tr>
 *   <tr><td>pinshard.loader.epoch.batch</td><td>gauge</td><td>batches of that epoch handed out</td></tr>
 * </table>
 */
public final class LoaderMeterBinder implements MeterBinder {
    private final Loader loader;
    private final Tags tags;

    /** Meters for {@code loader}, tagged {@code loader=<name>} and {@code extraTags}. */
    public LoaderMeterBinder(Loader loader, Iterable<Tag> extraTags) {
        this.loader = loader;
        this.tags = Tags.of("loader", loader.name()).and(extraTags);
    }

    public LoaderMeterBinder(Loader loader) {
        this(loader, Tags.empty());
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        long imageBytes = loader.options().augment().imageBytes();
        counter(registry, "pinshard.loader.images", "Images handed to the trainer", "images", s -> s.stats().images());
        counter(registry, "pinshard.loader.batches", "Batches handed to the trainer", "batches", s -> s.stats().batches());
        counter(registry, "pinshard.loader.output", "Output tensor bytes handed to the trainer", BaseUnits.BYTES,
            s -> (double) s.stats().images() * imageBytes);
        counter(registry, "pinshard.loader.source.read", "Stored payload bytes the workers read", BaseUnits.BYTES,
            s -> s.stats().sourceMegabytesPerSecond() * 1e6 * s.stats().seconds());
        counter(registry, "pinshard.loader.skipped.records", "Corrupt records replaced under ErrorPolicy.SKIP",
            "records", s -> s.stats().skippedRecords());
        FunctionTimer.builder("pinshard.loader.data.wait", loader, l -> l.dataWait().steps(),
                l -> l.dataWait().totalWaitNanos(), TimeUnit.NANOSECONDS)
            .description("Time training steps spent blocked in next() waiting for a batch").tags(tags).register(registry);
        FunctionTimer.builder("pinshard.loader.step", loader, l -> l.dataWait().steps(),
                l -> l.dataWait().totalStepNanos(), TimeUnit.NANOSECONDS)
            .description("Training step time, from one batch's arrival to the next's").tags(tags).register(registry);
        gauge(registry, "pinshard.loader.worker.usage", "Share of worker time spent on samples (0..1)", null,
            s -> s.stats().workerBusyPercent() / 100);
        gauge(registry, "pinshard.loader.ring.occupied", "Ring slots holding samples (filling, ready or held)", "slots",
            LoaderSnapshot::ringOccupied);
        Gauge.builder("pinshard.loader.ring.slots", loader, Loader::slots).description("Ring slots").baseUnit("slots")
            .tags(tags).register(registry);
        Gauge.builder("pinshard.loader.workers", loader, l -> l.options().ring().workers())
            .description("Worker threads")
            .baseUnit(BaseUnits.THREADS).tags(tags).register(registry);
        Gauge.builder("pinshard.loader.epoch", loader, Loader::currentEpoch)
            .description("Epoch last started (-1 before any)").tags(tags).register(registry);
        Gauge.builder("pinshard.loader.epoch.batch", loader, Loader::batchInEpoch)
            .description("Batches of the current epoch handed out so far").baseUnit("batches").tags(tags).register(registry);
    }

    private void counter(MeterRegistry registry, String name, String description, String unit,
                         ToDoubleFunction<LoaderSnapshot> value) {
        FunctionCounter.builder(name, loader, l -> read(l, value)).description(description).baseUnit(unit).tags(tags)
            .register(registry);
    }

    private void gauge(MeterRegistry registry, String name, String description, String unit,
                       ToDoubleFunction<LoaderSnapshot> value) {
        Gauge.builder(name, loader, l -> read(l, value)).description(description).baseUnit(unit).tags(tags)
            .register(registry);
    }

    /** NaN once the loader is closed (its counters lived in its memory); a function counter then keeps its last value. */
    private static double read(Loader loader, ToDoubleFunction<LoaderSnapshot> value) {
        LoaderSnapshot snapshot = loader.snapshot();
        return snapshot == null ? Double.NaN : value.applyAsDouble(snapshot);
    }
}
