package io.pinshard.cli;

import io.pinshard.reader.CrcCheck;
import io.pinshard.reader.loader.LoaderMode;
import io.pinshard.reader.loader.LoaderOptions;
import io.pinshard.reader.loader.Resampler;
import io.pinshard.reader.loader.SampleOrder;
import picocli.CommandLine.Option;

/** The loader's options on the command line, shared by {@code bench} and {@code serve}. */
final class LoaderOptionsMixin {
    @Option(names = "--batch", defaultValue = "256", description = "Batch size (default ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--crop", defaultValue = "224", description = "Output side in pixels (default ${DEFAULT-VALUE}).")
    int crop;

    @Option(names = "--workers", description = "Worker threads (default: available processors).")
    Integer workers;

    @Option(names = "--prefetch", description = "Ring slots (default: max(2, 2 x workers)).")
    Integer prefetch;

    @Option(names = "--order", defaultValue = "random", description = "random, sequential or quasi-random (default ${DEFAULT-VALUE}).")
    String order;

    @Option(names = "--eval", description = "Eval mode: resize + centre crop instead of random-resized-crop + flip.")
    boolean eval;

    @Option(names = "--crc", defaultValue = "auto", paramLabel = "MODE", description = "Payload CRC32C checks: auto "
        + "(jpeg and lz4), always or never (default ${DEFAULT-VALUE}).")
    String crc;

    @Option(names = "--check-crc", description = "Same as --crc always.")
    boolean checkCrc;

    @Option(names = "--seed", defaultValue = "0", description = "Seed (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--rank", defaultValue = "0", description = "This process's rank (default ${DEFAULT-VALUE}).")
    int rank;

    @Option(names = "--world", defaultValue = "1", description = "Number of ranks (default ${DEFAULT-VALUE}).")
    int world;

    @Option(names = "--resampler", defaultValue = "auto", description = "Crop resampler: auto, vector (JDK Vector API;"
        + " needs --add-modules=jdk.incubator.vector, which ./pinshard passes) or opencv (default ${DEFAULT-VALUE}).")
    String resampler;

    /** A builder holding these options; callers add what is theirs (allocator, data-wait guard). */
    LoaderOptions.Builder builder() {
        LoaderOptions.Builder builder = LoaderOptions.builder().batchSize(batch).crop(crop)
            .order(SampleOrder.parse(order)).seed(seed).distributed(rank, world)
            .crcCheck(checkCrc ? CrcCheck.ALWAYS : CrcCheck.fromLabel(crc))
            .mode(eval ? LoaderMode.EVAL : LoaderMode.TRAIN).resampler(Resampler.parse(resampler));
        if (workers != null) {
            builder.workers(workers);
        }
        if (prefetch != null) {
            builder.prefetch(prefetch);
        }
        return builder;
    }
}
