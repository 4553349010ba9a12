package io.pinshard.cuda;

/** Where host batches come from (the loader's epoch iterator, adapted). */
@FunctionalInterface
public interface HostBatchSource {
    /** The next filled host batch, blocking until one is ready; {@code null} at the end of the epoch. */
    HostBatch next();
}
