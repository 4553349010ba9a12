package io.pinshard.loader.options;

import static io.pinshard.loader.options.OptionChecks.require;

import io.pinshard.memory.BatchMemoryAllocator;
import java.util.Objects;

/**
 * How many threads fill how many batch slots, and where their memory comes from: what the batch ring reads. A part
 * of {@link LoaderOptions}; build it with {@link LoaderOptions#builder()}.
 *
 * @param workers          worker threads (default: available processors)
 * @param prefetch         batch slots in the ring: how many batches workers may fill ahead, and the upper bound of
 *                         batches a consumer may hold at once
 * @param allocator        where batch memory comes from (page-locked memory through the cuda-bridge)
 * @param scratchAllocator where worker scratch and control memory come from
 */
public record RingOptions(int workers, int prefetch, BatchMemoryAllocator allocator,
                          BatchMemoryAllocator scratchAllocator) {
    public RingOptions {
        Objects.requireNonNull(allocator, "allocator");
        Objects.requireNonNull(scratchAllocator, "scratchAllocator");
        require(workers >= 1 && workers <= 1024, "workers must be 1..1024: " + workers);
        require(prefetch >= 1 && prefetch <= 1024, "prefetch must be 1..1024: " + prefetch);
    }
}
