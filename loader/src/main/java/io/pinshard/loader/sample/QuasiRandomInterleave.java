package io.pinshard.loader.sample;

import io.pinshard.loader.options.SamplingOptions;

/**
 * How many quasi-random windows are shuffled together when the options leave it to the loader
 * ({@link SamplingOptions#AUTO_INTERLEAVE}). A group of windows is what must stay resident while it is read (in the
 * page cache, or in the shard cache of a streamed dataset), so the choice is the most windows, up to {@link #MOST},
 * whose records fit {@link #WORKING_SET_BYTES}; never fewer than one. It depends on the dataset alone (records,
 * bytes, window), not on where it is read from: the same options give the same order from a local copy and from
 * object storage, and a {@link io.pinshard.loader.options.LoaderState} resumes on either. Mixing stops paying before
 * {@link #MOST}: at 16 windows fifteen of sixteen neighbouring samples come from different windows
 * (docs/benchmarks.md, "Shuffle quality").
 */
public final class QuasiRandomInterleave {
    /** The most windows chosen automatically. */
    public static final int MOST = 16;
    /** The bytes of records a group of windows may span. */
    public static final long WORKING_SET_BYTES = 512L << 20;

    private QuasiRandomInterleave() {
    }

    /** The interleave for a dataset of {@code records} records and {@code bytes} bytes, windows of {@code window}. */
    public static int choose(long records, long bytes, int window) {
        if (records <= 0) {
            return 1;
        }
        double recordBytes = Math.max(1.0, (double) bytes / records);
        long windows = (long) (WORKING_SET_BYTES / (recordBytes * Math.min(window, records)));
        return (int) Math.max(1, Math.min(MOST, windows));
    }

    /** {@code options} with a chosen interleave for {@link SamplingOptions#AUTO_INTERLEAVE}; others as given. */
    public static SamplingOptions resolve(SamplingOptions options, long records, long bytes) {
        if (options.quasiRandomInterleave() != SamplingOptions.AUTO_INTERLEAVE) {
            return options;
        }
        return options.withInterleave(choose(records, bytes, options.quasiRandomWindow()));
    }

    /** The interleave a plan built from {@code options} uses: {@link #MOST} where it was left to the loader. */
    static int of(SamplingOptions options) {
        int value = options.quasiRandomInterleave();
        return value == SamplingOptions.AUTO_INTERLEAVE ? MOST : value;
    }
}
