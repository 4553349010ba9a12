package io.pinshard.cli;

import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.SampleOrder;
import picocli.CommandLine.Option;

/** The loader's sampling group on the command line ({@link io.pinshard.loader.options.SamplingOptions}). */
final class SamplingOptionsMixin {
    @Option(names = "--batch", defaultValue = "256", description = "Batch size (default ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--order", defaultValue = "random", description = "random, sequential or quasi-random (default ${DEFAULT-VALUE}).")
    String order;

    @Option(names = "--window", paramLabel = "N", description = "quasi-random: records per shard-local window "
        + "(default 1024).")
    Integer window;

    @Option(names = "--interleave", paramLabel = "N", description = "quasi-random: windows (of different shards) "
        + "shuffled together, 1-64 (default: chosen from the dataset, up to 16, so that a group's records fit "
        + "512 MiB; a streamed dataset's cache must hold a group's shards plus one).")
    Integer interleave;

    @Option(names = "--seed", defaultValue = "0", description = "Seed (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--rank", defaultValue = "0", description = "This process's rank (default ${DEFAULT-VALUE}).")
    int rank;

    @Option(names = "--world", defaultValue = "1", description = "Number of ranks (default ${DEFAULT-VALUE}).")
    int world;

    @Option(names = "--drop-last", description = "Drop the incomplete last batch instead of delivering it.")
    boolean dropLast;

    void applyTo(LoaderOptions.Builder builder) {
        builder.batchSize(batch).order(SampleOrder.parse(order)).seed(seed).distributed(rank, world).dropLast(dropLast);
        if (window != null) {
            builder.quasiRandomWindow(window);
        }
        if (interleave != null) {
            builder.quasiRandomInterleave(interleave);
        }
    }
}
