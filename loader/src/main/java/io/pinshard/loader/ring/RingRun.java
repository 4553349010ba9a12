package io.pinshard.loader.ring;

/**
 * What a worker waiting on a slot ({@link BatchRing#awaitOpen}) asks of the run it works on: whether it gives up
 * its ticket of a segment. The loader's run implements it; the interface keeps the ring below the workers' package.
 */
public interface RingRun {
    /** Whether a worker holding a ticket of {@code segment} gives it up: the run stopped or failed at or before it. */
    boolean abandons(int segment);
}
