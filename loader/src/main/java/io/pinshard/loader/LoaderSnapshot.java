package io.pinshard.loader;

/**
 * A loader's figures at one instant, for metrics: {@link LoaderStats} plus the ring occupancy, the position and the
 * loader's shape (name, slots, workers). Made by the loader from any thread; a closed loader makes none.
 */
public record LoaderSnapshot(String loader, LoaderStats stats, int ringOccupied, int epoch, long batchInEpoch, int ringSlots,
                      int workers) {
}
