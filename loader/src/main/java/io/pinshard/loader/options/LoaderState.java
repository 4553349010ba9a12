package io.pinshard.loader.options;

import java.util.List;

/**
 * Where a training job stands in an epoch, small enough to store in a checkpoint: a loader built with the
 * same dataset and options (workers, prefetch, rank and world size may differ) resumes with
 * {@link io.pinshard.loader.Loader#resume(LoaderState)}. On the same world size it delivers exactly the batches that were left;
 * on another one it delivers the epoch's unconsumed samples exactly once across the new ranks (the rules:
 * {@link io.pinshard.loader.Loader#resume(LoaderState)}). Jackson serialises it as a plain JSON object:
 *
 * <pre>{@code {"epoch":3,"batchesConsumed":7,"seed":42,"worldSize":3,"rank":0,"segments":[{"worldSize":8,"batches":5}]}}</pre>
 *
 * In DDP every rank consumes in lockstep, so the states of all ranks differ only in {@code rank}: one state
 * describes the job and any rank's state resumes any rank, on any world size. A state read from JSON without
 * {@code segments} (written before elastic resume existed) has none.
 *
 * @param epoch            the epoch being iterated
 * @param batchesConsumed  batches of that epoch every rank has handed to the trainer, counting those of
 *                         earlier segments
 * @param seed             the loader's seed (checked on resume: the epoch order depends on it)
 * @param worldSize        number of ranks the state was saved on
 * @param rank             the rank that saved it (informational: all ranks' states agree but for it)
 * @param segments         the epoch's earlier world sizes, oldest first, at most {@link #MAX_SEGMENTS}: the
 *                         epoch started on {@code segments[0].worldSize()} ranks, which consumed
 *                         {@code segments[0].batches()} batches each, then the job was resized, and so on;
 *                         empty while the epoch has run on one world size only
 */
public record LoaderState(int epoch, long batchesConsumed, long seed, int worldSize, int rank, List<Segment> segments) {
    /** The most world-size changes one epoch's state records; an epoch resized more often is refused. */
    public static final int MAX_SEGMENTS = 8;

    /**
     * @throws IllegalArgumentException naming the field when a count is negative, the rank is outside the
     *                                  world, there are more than {@link #MAX_SEGMENTS} segments, or the
     *                                  segments hold more batches than {@code batchesConsumed}
     */
    public LoaderState {
        segments = segments == null ? List.of() : List.copyOf(segments);
        if (epoch < 0 || batchesConsumed < 0 || worldSize < 1 || rank < 0 || rank >= worldSize) {
            throw new IllegalArgumentException("invalid loader state: epoch " + epoch + ", batches " + batchesConsumed
                + ", rank " + rank + " of " + worldSize);
        }
        if (segments.size() > MAX_SEGMENTS) {
            throw new IllegalArgumentException("invalid loader state: " + segments.size() + " segments in epoch "
                + epoch + ", at most " + MAX_SEGMENTS + " world-size changes per epoch are recorded");
        }
        long earlier = batchesOf(segments);
        if (earlier > batchesConsumed) {
            throw new IllegalArgumentException("invalid loader state: its segments consumed " + earlier
                + " batches of epoch " + epoch + ", more than the " + batchesConsumed + " it says were consumed");
        }
    }

    /** A state of an epoch that has run on one world size only. */
    public LoaderState(int epoch, long batchesConsumed, long seed, int worldSize, int rank) {
        this(epoch, batchesConsumed, seed, worldSize, rank, List.of());
    }

    /** Batches consumed per rank since the epoch last changed world size (all of them when it never did). */
    public long batchesInSegment() {
        return batchesConsumed - batchesOf(segments);
    }

    /** Batches consumed per rank in {@code segments}, the epoch's earlier world sizes. */
    public static long batchesOf(List<Segment> segments) {
        long batches = 0;
        for (Segment segment : segments) {
            batches += segment.batches();
        }
        return batches;
    }

    /**
     * An earlier part of the epoch: {@code batches} batches per rank on {@code worldSize} ranks, before the job
     * was resized.
     */
    public record Segment(int worldSize, long batches) {
        public Segment {
            if (worldSize < 1 || batches < 0) {
                throw new IllegalArgumentException("invalid loader state segment: " + batches + " batches on "
                    + worldSize + " ranks");
            }
        }
    }
}
