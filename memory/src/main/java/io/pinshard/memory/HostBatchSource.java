package io.pinshard.memory;

/** Where host batches come from (the loader's epoch iterator, adapted). */
@FunctionalInterface
public interface HostBatchSource {
    /** The next filled host batch, blocking until one is ready; {@code null} at the end of the epoch. */
    HostBatch next();

    /**
     * How many of its batches may be unreleased when {@link #next()} is called: a loader with {@code n} ring slots
     * can hand out a batch only while fewer than {@code n} are held, so it answers {@code n - 1}. Before calling
     * {@code next()} the stream waits for copies to complete until fewer than this are in flight.
     */
    default int maxUnreleasedBeforeNext() {
        return Integer.MAX_VALUE;
    }
}
