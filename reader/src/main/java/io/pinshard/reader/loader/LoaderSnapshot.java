package io.pinshard.reader.loader;

/**
 * A loader's figures at one instant, for metrics: {@link LoaderStats} plus the ring occupancy and the position.
 * Read from any thread; a closed loader gives null.
 */
record LoaderSnapshot(LoaderStats stats, int ringOccupied, int epoch, long batchInEpoch) {
    static LoaderSnapshot of(Loader loader) {
        try {
            return new LoaderSnapshot(loader.stats(), loader.ringOccupied(), loader.currentEpoch(), loader.batchInEpoch());
        } catch (IllegalStateException closed) {
            return null;
        }
    }
}
