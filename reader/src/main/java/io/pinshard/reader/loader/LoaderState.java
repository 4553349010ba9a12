package io.pinshard.reader.loader;

/**
 * Where a rank stands in training, small enough to store in a checkpoint: a loader built with the
 * same dataset and options resumes with {@link Loader#resume(LoaderState)} and delivers exactly the
 * batches that were left. Jackson serialises it as a plain JSON object.
 *
 * @param epoch            the epoch being iterated
 * @param batchesConsumed  batches of that epoch already handed to the trainer
 * @param seed             the loader's seed (checked on resume)
 * @param worldSize        number of ranks (checked on resume)
 * @param rank             this rank (checked on resume)
 */
public record LoaderState(int epoch, long batchesConsumed, long seed, int worldSize, int rank) {
    public LoaderState {
        if (epoch < 0 || batchesConsumed < 0 || worldSize < 1 || rank < 0 || rank >= worldSize) {
            throw new IllegalArgumentException("invalid loader state: epoch " + epoch + ", batches " + batchesConsumed
                + ", rank " + rank + " of " + worldSize);
        }
    }
}
