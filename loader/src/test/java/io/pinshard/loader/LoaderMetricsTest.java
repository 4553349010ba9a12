package io.pinshard.loader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pinshard.format.Codec;
import io.pinshard.loader.metrics.LoaderMeterBinder;
import io.pinshard.loader.ring.Batch;
import io.pinshard.memory.HeapRounds;
import io.pinshard.reader.Dataset;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The loader's figures as JFR events (recorded here) and Micrometer meters (registered in a SimpleMeterRegistry). */
class LoaderMetricsTest {
    private static final int RECORDS = 40; // batch 8: 5 batches per epoch

    @TempDir
    Path temp;

    private static long runEpochs(Loader loader, int first, int count) {
        long batches = 0;
        for (int e = first; e < first + count; e++) {
            try (Epoch epoch = loader.epoch(e)) {
                while (epoch.hasNext()) {
                    try (Batch batch = epoch.next()) {
                        batches++;
                    }
                }
            }
        }
        return batches;
    }

    @Test
    void jfrRecordsPeriodicLoaderStatisticsAndOneDataWaitEventPerStep() throws Exception {
        Path dir = TestDatasets.write(temp.resolve("raw"), RECORDS, Codec.RAW, 3, 1 << 20);
        Path file = temp.resolve("loader.jfr");
        List<Map<String, Object>> stats = new ArrayList<>();
        List<Map<String, Object>> waits = new ArrayList<>();
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, TestDatasets.small().build())) {
            // A recording dumped to a file: its constant pools (where longer strings live) are complete there.
            try (Recording recording = new Recording()) {
                recording.enable(LoaderStatsEvent.NAME).withPeriod(Duration.ofMillis(100));
                recording.enable("io.pinshard.DataWait");
                recording.start();
                runEpochs(loader, 0, 2);
                // Hold the third epoch's second batch while the periodic event fires: position and ring are visible.
                try (Epoch epoch = loader.epoch(2)) {
                    try (Batch first = epoch.next(); Batch second = epoch.next()) {
                        // Held until a periodic event has seen them (JFR's periodic thread runs the hook every 100 ms,
                        // later on a loaded machine): read back from dumps of the running recording.
                        Path sofar = temp.resolve("sofar.jfr");
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                        do {
                            Thread.sleep(100);
                            recording.dump(sofar);
                        } while (RecordingFile.readAllEvents(sofar).stream().noneMatch(e -> e.getEventType().getName()
                            .equals(LoaderStatsEvent.NAME) && isHeld(fields(e))) && System.nanoTime() < deadline);
                    }
                }
                recording.stop();
                recording.dump(file);
            }
            for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
                String name = event.getEventType().getName();
                if (name.equals(LoaderStatsEvent.NAME)) {
                    stats.add(fields(event));
                } else if (name.equals("io.pinshard.DataWait")) {
                    waits.add(fields(event));
                }
            }
            Map<String, Object> held = stats.stream().filter(LoaderMetricsTest::isHeld).findFirst().orElse(null);
            assertNotNull(held, "no statistics event while holding batch 2 of epoch 2: " + stats);
            assertEquals(loader.name(), held.get("loader"), held.toString());
            assertEquals(2, (int) held.get("epoch"));
            assertEquals(12, (long) held.get("batches"));
            assertEquals(4, (int) held.get("ringSlots"));
            assertEquals(2, (int) held.get("workers"));
            // Two held; the workers fill the other two slots ahead of the trainer (workers wait for free slots).
            assertTrue((int) held.get("ringOccupied") >= 2 && (int) held.get("ringOccupied") <= 4, held.toString());
            assertTrue((double) held.get("imagesPerSecond") > 0, held.toString());
            assertEquals((double) held.get("imagesPerSecond") * 16 * 16 * 3, (double) held.get("outputBytesPerSecond"),
                1e-6 * (double) held.get("outputBytesPerSecond"));
            assertTrue((double) held.get("dataWait") >= 0 && (double) held.get("dataWait") <= 1, held.toString());
            assertTrue((double) held.get("workerBusy") > 0 && (double) held.get("workerBusy") <= 1, held.toString());
            assertEquals(0, (long) held.get("skippedRecords"));
            // One data-wait event per next(): 5 + 5 + 2 steps, each naming the loader's batches, in step order.
            List<Map<String, Object>> ours = waits.stream()
                .filter(e -> ((String) e.get("what")).contains(loader.name())).toList();
            assertEquals(12, ours.size(), ours.toString());
            for (Map<String, Object> wait : ours) {
                assertTrue((long) wait.get("wait") >= 0 && (long) wait.get("step") >= 0, wait.toString());
            }
        }
    }

    @Test
    void micrometerMetersFollowTheLoadersCounters() throws Exception {
        Path dir = TestDatasets.write(temp.resolve("raw"), RECORDS, Codec.RAW, 3, 1 << 20);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, TestDatasets.small().build())) {
            new LoaderMeterBinder(loader, Tags.of("job", "test")).bindTo(registry);
            Map<String, String> kinds = new TreeMap<>();
            for (Meter meter : registry.getMeters()) {
                assertEquals(loader.name(), meter.getId().getTag("loader"), meter.getId().toString());
                assertEquals("test", meter.getId().getTag("job"));
                kinds.put(meter.getId().getName(), meter.getId().getType() + " " + meter.getId().getBaseUnit());
            }
            assertEquals(new TreeMap<>(Map.ofEntries(
                Map.entry("pinshard.loader.images", "COUNTER images"),
                Map.entry("pinshard.loader.batches", "COUNTER batches"),
                Map.entry("pinshard.loader.output", "COUNTER bytes"),
                Map.entry("pinshard.loader.source.read", "COUNTER bytes"),
                Map.entry("pinshard.loader.skipped.records", "COUNTER records"),
                Map.entry("pinshard.loader.data.wait", "TIMER seconds"),
                Map.entry("pinshard.loader.step", "TIMER seconds"),
                Map.entry("pinshard.loader.worker.usage", "GAUGE null"),
                Map.entry("pinshard.loader.ring.occupied", "GAUGE slots"),
                Map.entry("pinshard.loader.ring.slots", "GAUGE slots"),
                Map.entry("pinshard.loader.workers", "GAUGE threads"),
                Map.entry("pinshard.loader.epoch", "GAUGE null"),
                Map.entry("pinshard.loader.epoch.batch", "GAUGE batches"))), kinds);
            assertEquals(-1, gauge(registry, "pinshard.loader.epoch"));
            assertEquals(0, counter(registry, "pinshard.loader.images"));

            long batches = runEpochs(loader, 0, 3);
            assertEquals(15, batches);
            assertEquals(3 * RECORDS, counter(registry, "pinshard.loader.images"));
            assertEquals(15, counter(registry, "pinshard.loader.batches"));
            assertEquals(3.0 * RECORDS * 16 * 16 * 3, counter(registry, "pinshard.loader.output"));
            // Raw records: the payload bytes read are the stored images' bytes, every record once per epoch.
            assertTrue(counter(registry, "pinshard.loader.source.read") > 0);
            assertEquals(0, counter(registry, "pinshard.loader.skipped.records"));
            FunctionTimer wait = registry.get("pinshard.loader.data.wait").functionTimer();
            assertEquals(loader.dataWait().steps(), (long) wait.count());
            assertEquals(loader.dataWait().totalWaitNanos() / 1e9, wait.totalTime(TimeUnit.SECONDS), 1e-9);
            assertEquals(2, gauge(registry, "pinshard.loader.epoch"));
            assertEquals(5, gauge(registry, "pinshard.loader.epoch.batch"));
            assertEquals(4, gauge(registry, "pinshard.loader.ring.slots"));
            assertEquals(2, gauge(registry, "pinshard.loader.workers"));
            double usage = gauge(registry, "pinshard.loader.worker.usage");
            assertTrue(usage > 0 && usage <= 1, "usage " + usage);
            try (Epoch epoch = loader.epoch(3); Batch held = epoch.next()) {
                assertEquals(1, gauge(registry, "pinshard.loader.epoch.batch"));
                assertTrue(gauge(registry, "pinshard.loader.ring.occupied") >= 1);
            }
            loader.close();
            assertTrue(Double.isNaN(gauge(registry, "pinshard.loader.worker.usage")));
            assertTrue(Double.isNaN(gauge(registry, "pinshard.loader.ring.occupied")));
        }
    }

    @Test
    void noHeapPerBatchWithABinderBoundAndNoJfrRecording() throws Exception {
        Path dir = TestDatasets.write(temp.resolve("raw"), RECORDS, Codec.RAW, 3, 1 << 20);
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, TestDatasets.small().build())) {
            new LoaderMeterBinder(loader).bindTo(new SimpleMeterRegistry());
            try (Epoch epoch = loader.epoch(0)) {
                HeapRounds.untilQuiet(() -> {
                    try (Batch batch = epoch.next()) {
                        // the trainer's side: take and give back
                    }
                }, 2, 4);
            }
            // The least of up to three epochs: the JIT allocates now and then while it settles (as CI saw in another
            // zero-heap test), where a batch that allocated would do so in every epoch.
            long heap = HeapRounds.leastMeasured(3, 0, round -> {
                try (Epoch epoch = loader.epoch(round + 1)) {
                    epoch.next().close(); // the first wait starts the step clock
                    return HeapRounds.allocatedBy(() -> {
                        for (int b = 1; b < 5; b++) {
                            epoch.next().close();
                        }
                    });
                }
            });
            assertEquals(0, heap, "trainer-thread heap bytes over 4 batches, least of up to 3 epochs");
        }
    }

    /** Whether a statistics event saw the trainer holding batch 2 of epoch 2, after two whole epochs. */
    private static boolean isHeld(Map<String, Object> stats) {
        return stats.get("batchInEpoch").equals(2L) && stats.get("images").equals(2L * RECORDS + 16);
    }

    private static Map<String, Object> fields(RecordedEvent event) {
        Map<String, Object> fields = new TreeMap<>();
        event.getFields().forEach(f -> fields.put(f.getName(), event.getValue(f.getName())));
        return fields;
    }

    private static double counter(SimpleMeterRegistry registry, String name) {
        FunctionCounter counter = registry.get(name).functionCounter();
        return counter.count();
    }

    private static double gauge(SimpleMeterRegistry registry, String name) {
        Gauge gauge = registry.get(name).gauge();
        return gauge.value();
    }
}
