package io.pinshard.datawait;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
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
     * The registered contexts of {@code loader}'s class path, joined into one supplier ("a; b"), or null when
     * there is none. A provider that cannot be loaded is left out with one log line.
     */
    static Supplier<String> discover(ClassLoader loader) {
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
        if (found.isEmpty()) {
            return null;
        }
        List<DataWaitContext> contexts = List.copyOf(found);
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
}
