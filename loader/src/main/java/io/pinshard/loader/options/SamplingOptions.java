package io.pinshard.loader.options;

import static io.pinshard.loader.options.OptionChecks.require;

import java.util.Objects;

/**
 * Which records each batch of each rank holds, in which order: what the epoch plan, the elastic split and the shard
 * prefetcher read. A part of {@link LoaderOptions}; build it with {@link LoaderOptions#builder()}.
 *
 * @param batchSize             images per batch
 * @param order                 visiting order ({@code shuffle=True} is {@link SampleOrder#RANDOM})
 * @param seed                  base of every random decision (order and augmentation)
 * @param dropLast              drop the incomplete last batch (and, with world > 1, the records that do not divide
 *                              evenly among ranks) instead of padding
 * @param rank                  this process's rank
 * @param worldSize             number of ranks
 * @param quasiRandomWindow     records per shard-local window for {@link SampleOrder#QUASI_RANDOM}
 * @param quasiRandomInterleave quasi-random: windows (of different shards, as the window order falls) whose records
 *                              are shuffled together, 1 .. {@value #MAX_INTERLEAVE}; {@value #AUTO_INTERLEAVE} (the
 *                              default) lets {@code Loader.open} choose from the dataset (docs/loader.md, "Order")
 */
public record SamplingOptions(int batchSize, SampleOrder order, long seed, boolean dropLast, int rank, int worldSize,
                              int quasiRandomWindow, int quasiRandomInterleave) {
    /** {@link #quasiRandomInterleave()}: chosen by {@code Loader.open} from the dataset's records and bytes. */
    public static final int AUTO_INTERLEAVE = 0;
    /** The most quasi-random windows shuffled together. */
    public static final int MAX_INTERLEAVE = 64;

    public SamplingOptions {
        Objects.requireNonNull(order, "order");
        require(batchSize >= 1 && batchSize <= 1 << 16, "batch size must be 1..65536: " + batchSize);
        require(worldSize >= 1, "world size must be at least 1: " + worldSize);
        require(rank >= 0 && rank < worldSize, "rank must be 0.." + (worldSize - 1) + ": " + rank);
        require(quasiRandomWindow >= 1, "quasi-random window must be at least 1 record");
        require(quasiRandomInterleave >= AUTO_INTERLEAVE && quasiRandomInterleave <= MAX_INTERLEAVE,
            "quasi-random interleave must be 1.." + MAX_INTERLEAVE + " windows, or " + AUTO_INTERLEAVE + " for auto: "
                + quasiRandomInterleave);
    }

    /** These options with {@code windows} in place of the interleave ({@code Loader.open} resolving auto). */
    public SamplingOptions withInterleave(int windows) {
        return new SamplingOptions(batchSize, order, seed, dropLast, rank, worldSize, quasiRandomWindow, windows);
    }
}
