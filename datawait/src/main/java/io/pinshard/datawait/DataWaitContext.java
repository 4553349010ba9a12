package io.pinshard.datawait;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;

/**
 * A service that adds what a module above this one knows to every {@link DataWaitMonitor}'s warning, so that the
 * loader's own warning carries it without the trainer wiring anything: cuda-bridge registers one that says GPU
 * utilisation (NVML), or why there is no such figure. Found with {@link ServiceLoader} (a
 * {@code META-INF/services/io.pinshard.datawait.DataWaitContext} file naming a public class with a no-argument
 * constructor); the lookup runs once per JVM, the constructor must be cheap, and {@link #describe()} is asked only
 * when a warning fires, never per step.
 */
public interface DataWaitContext {
    /** Text to append to the warning ("GPU 0 utilisation 37 %"); null or empty adds nothing. */
    String describe();

    /**
     * GPU busy percent now (0 to 100) for the step log's {@code gpu_util}, or -1 when this context has no such
     * figure (the default). Asked at most once a second by a monitor that writes a step log.
     */
    default int gpuPercent() {
        return -1;
    }

    /**
     * The registered contexts of {@code loader}'s class path, joined into one supplier ("a; b"), or null when
     * there is none. A provider that cannot be loaded is left out with one log line.
     */
    static Supplier<String> discover(ClassLoader loader) {
        return describeAll(load(loader));
    }

    /** The registered contexts of {@code loader}'s class path; a provider that cannot be loaded is left out. */
    static List<DataWaitContext> load(ClassLoader loader) {
        List<DataWaitContext> found = new ArrayList<>();
        var providers = ServiceLoader.load(DataWaitContext.class, loader).iterator();
        for (int broken = 0; broken < 16; ) { // a broken services file may throw at every step: stop somewhere
            try {
                if (!providers.hasNext()) {
                    break;
                }
                found.add(providers.next());
            } catch (ServiceConfigurationError error) {
                broken++;
                LoggerFactory.getLogger(DataWaitContext.class).warn("data-wait warning context left out: {}",
                    error.getMessage());
            }
        }
        return List.copyOf(found);
    }

    /** {@code contexts}' texts joined into one supplier ("a; b"), or null when there is none. */
    static Supplier<String> describeAll(List<DataWaitContext> contexts) {
        if (contexts.isEmpty()) {
            return null;
        }
        return () -> {
            StringBuilder text = new StringBuilder();
            for (DataWaitContext context : contexts) {
                String part = context.describe();
                if (part != null && !part.isEmpty()) {
                    text.append(text.length() == 0 ? "" : "; ").append(part);
                }
            }
            return text.toString();
        };
    }

    /**
     * The first figure of {@code contexts}' {@link #gpuPercent()} that is not -1 (-1 when none has one), or null
     * when no context is registered; a context that throws counts as -1.
     */
    static IntSupplier gpuPercentOf(List<DataWaitContext> contexts) {
        if (contexts.isEmpty()) {
            return null;
        }
        return () -> {
            for (DataWaitContext context : contexts) {
                int percent;
                try {
                    percent = context.gpuPercent();
                } catch (RuntimeException e) {
                    percent = -1;
                }
                if (percent >= 0) {
                    return percent;
                }
            }
            return -1;
        };
    }
}
