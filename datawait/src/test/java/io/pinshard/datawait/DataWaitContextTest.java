package io.pinshard.datawait;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.memory.HeapRounds;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The data-wait warning's context services: found through META-INF/services, asked only when the warning fires. */
class DataWaitContextTest {
    private static final long MS = 1_000_000;
    static final AtomicInteger ASKED = new AtomicInteger();

    /** A provider as cuda-bridge's is: public, no-argument constructor, says something when asked. */
    public static final class Utilisation implements DataWaitContext {
        @Override
        public String describe() {
            return "fake GPU utilisation " + (40 + ASKED.getAndIncrement()) + " %";
        }
    }

    /** A second provider with something to say. */
    public static final class Temperature implements DataWaitContext {
        @Override
        public String describe() {
            return "fake temperature 50 C";
        }
    }

    /** A third provider that has nothing to say: it adds no separator. */
    public static final class Silent implements DataWaitContext {
        @Override
        public String describe() {
            return "";
        }
    }

    @TempDir
    Path temp;

    /** A class loader whose class path has a services file listing {@code providers}. */
    private ClassLoader withServices(String... providers) throws IOException {
        Path services = temp.resolve("META-INF/services");
        Files.createDirectories(services);
        Files.write(services.resolve(DataWaitContext.class.getName()), java.util.List.of(providers));
        return new URLClassLoader(new URL[] {temp.toUri().toURL()}, getClass().getClassLoader());
    }

    @Test
    void registeredProvidersAreFoundAndJoinedAndABrokenOneIsLeftOut() throws IOException {
        Supplier<String> context = DataWaitContext.discover(withServices(Utilisation.class.getName(),
            "io.pinshard.datawait.NoSuchProvider", Silent.class.getName(), Temperature.class.getName()));
        ASKED.set(0);
        assertEquals("fake GPU utilisation 40 %; fake temperature 50 C", context.get());
        assertEquals(1, ASKED.get());
    }

    @Test
    void withoutProvidersThereIsNoContext() throws IOException {
        assertNull(DataWaitContext.discover(withServices()));
        assertNull(DataWaitContext.discover(new URLClassLoader(new URL[0], null)));
    }

    @Test
    void theContextIsAskedOnceWhenTheWarningFiresAndAStepAllocatesNothing() throws IOException {
        Supplier<String> context = DataWaitContext.discover(withServices(Utilisation.class.getName()));
        DataWaitMonitor monitor = new DataWaitMonitor("host batches", "Try more workers.", 0.10, 4, 0);
        monitor.warningContext(context);
        ASKED.set(0);
        long now = 0;
        for (int step = 0; step < 2000; step++) { // warm up record() with a quiet 1 % wait
            now += 100 * MS;
            monitor.record(MS, now);
        }
        long[] clock = {now};
        long quiet = leastAllocated(() -> {
            for (int step = 0; step < 1000; step++) {
                clock[0] += 100 * MS;
                monitor.record(MS, clock[0]);
            }
        });
        now = clock[0];
        assertTrue(quiet < 1024, "heap bytes over 1000 quiet steps: " + quiet);
        assertEquals(0, ASKED.get(), "asked before any warning");
        for (int step = 0; step < 8 && !monitor.warned(); step++) { // 50 % until a whole window is
            now += 10 * MS;
            monitor.record(5 * MS, now);
        }
        assertEquals(1, ASKED.get());
        assertTrue(monitor.warning().contains("threshold 10%); fake GPU utilisation 40 %. Try more workers. The GPU"
            + " idles: find the workers that keep it fed with: pinshard bench DATASET --sweep --gpu-rate "),
            monitor.warning());
        clock[0] = now;
        long starved = leastAllocated(() -> {
            for (int step = 0; step < 1000; step++) { // starved on: the warning fired once and is not redone
                clock[0] += 10 * MS;
                monitor.record(5 * MS, clock[0]);
            }
        });
        assertTrue(starved < 1024, "heap bytes over 1000 starved steps: " + starved);
        assertEquals(1, ASKED.get(), "asked once, not per step");
    }

    /**
     * The least heap {@code round} allocated on this thread in up to five runs. The JIT allocates now and then while
     * it settles (736 bytes in one round of 1,000 steps on CI); a step that allocated would cost at least 16 KB in
     * every round, so the least of five under 1 KiB shows the steps allocate nothing.
     */
    private static long leastAllocated(Runnable round) {
        return HeapRounds.least(5, HeapRounds.QUIET_BYTES - 1, round);
    }

    @Test
    void aMonitorStartsWithTheContextsOfItsClassPath() {
        // memory's own class path registers none: no context, the warning as before.
        DataWaitMonitor monitor = new DataWaitMonitor("b", "h", 0.10, 1, 0);
        monitor.record(MS, MS);
        monitor.record(MS, 2 * MS);
        assertTrue(monitor.warning().contains("threshold 10%). h The GPU idles"), monitor.warning());
    }

    /** A provider with a GPU figure for the step log's gpu_util, as cuda-bridge's is on a machine with NVML. */
    public static final class Busy implements DataWaitContext {
        @Override
        public String describe() {
            return "";
        }

        @Override
        public int gpuPercent() {
            return 73;
        }
    }

    /** A provider that fails to sample: counts as no figure. */
    public static final class Broken implements DataWaitContext {
        @Override
        public String describe() {
            return "";
        }

        @Override
        public int gpuPercent() {
            throw new IllegalStateException("NVML gone");
        }
    }

    @Test
    void theStepLogsGpuUtilIsTheFirstFigureARegisteredContextHas() throws IOException {
        var contexts = DataWaitContext.load(withServices(Temperature.class.getName(), Broken.class.getName(),
            Busy.class.getName()));
        assertEquals(73, DataWaitContext.gpuPercentOf(contexts).getAsInt());
        assertEquals(-1, DataWaitContext.gpuPercentOf(DataWaitContext.load(withServices(Temperature.class.getName())))
            .getAsInt(), "no context has a figure: the log says null");
        assertNull(DataWaitContext.gpuPercentOf(DataWaitContext.load(withServices())));

        DataWaitMonitor monitor = new DataWaitMonitor("b", "h", 0.10, 50, 0);
        Path log = temp.resolve("steps.jsonl");
        try (StepLogWriter writer = StepLogWriter.open(log.toString(), "job", 0, "/data/train")) {
            monitor.stepLog(writer);
            monitor.gpuPercent(DataWaitContext.gpuPercentOf(contexts));
            monitor.record(MS, MS, 0, 8);
            monitor.record(MS, 2 * MS, 0, 8);
        }
        assertTrue(Files.readString(log).contains("\"gpu_util\": 73,"), Files.readString(log));
    }
}
