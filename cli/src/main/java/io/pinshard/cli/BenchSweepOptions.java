package io.pinshard.cli;

import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/** {@code pinshard bench}'s sweep options (a mixin, so the command's own options stay where they are). */
final class BenchSweepOptions {
    @Option(names = "--sweep", description = "Run the loader at 1..--max-workers workers on each DIR; print a table and"
        + " write a PNG chart of images/s against workers.")
    boolean sweep;

    @Option(names = "--max-workers", paramLabel = "N", description = "With --sweep: the most workers tried (default: 2 x"
        + " available processors, to show where adding workers stops paying).")
    Integer maxWorkers;

    @Option(names = "--gpu-rate", paramLabel = "R", description = "With --sweep: images/s one GPU trains at; adds the"
        + " GPUs' line to the chart and the workers they need.")
    Double gpuRate;

    @Option(names = "--gpus", paramLabel = "G", defaultValue = "1", description = "With --gpu-rate: GPUs (default ${DEFAULT-VALUE}).")
    int gpus;

    @Option(names = "--chart", paramLabel = "FILE", defaultValue = "pinshard-sweep.png",
        description = "With --sweep: where the PNG chart goes (default ${DEFAULT-VALUE}).")
    Path chart;

    /** The problem with these options, or null. */
    String problem(boolean device, List<Path> moreDirectories) {
        if (!sweep) {
            return !moreDirectories.isEmpty() ? "more than one DIR needs --sweep"
                : gpuRate != null ? "--gpu-rate needs --sweep" : null;
        }
        if (device) {
            return "--sweep measures the loader alone: drop --device";
        }
        if (maxWorkers != null && (maxWorkers < 1 || maxWorkers > 1024)) {
            return "--max-workers must be 1..1024";
        }
        if (gpuRate != null && (!(gpuRate > 0) || gpus < 1)) {
            return "--gpu-rate must be > 0 and --gpus >= 1";
        }
        return null;
    }
}
