package io.pinshard.cli;

import io.pinshard.loader.options.LoaderOptions;
import picocli.CommandLine.Option;

/** The loader's ring group on the command line ({@link io.pinshard.loader.options.RingOptions}); memory is the command's. */
final class RingOptionsMixin {
    @Option(names = "--workers", description = "Worker threads (default: available processors).")
    Integer workers;

    @Option(names = "--prefetch", description = "Ring slots (default: max(2, 2 x workers)).")
    Integer prefetch;

    void applyTo(LoaderOptions.Builder builder) {
        if (workers != null) {
            builder.workers(workers);
        }
        if (prefetch != null) {
            builder.prefetch(prefetch);
        }
    }
}
