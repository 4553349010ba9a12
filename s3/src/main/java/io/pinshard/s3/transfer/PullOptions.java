package io.pinshard.s3.transfer;

/**
 * How {@link DatasetPull} downloads.
 *
 * @param threads  shards downloaded at once
 * @param attempts tries per shard when its body is cut off midway (the SDK retries failures before the body)
 * @param force    replace a different dataset in the destination directory, and delete shard files it does not list
 */
public record PullOptions(int threads, int attempts, boolean force) {
    public PullOptions {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1: " + threads);
        }
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1: " + attempts);
        }
    }

    /** 4 threads, 3 attempts, nothing replaced. */
    public static PullOptions defaults() {
        return new PullOptions(4, 3, false);
    }

    public PullOptions withThreads(int n) {
        return new PullOptions(n, attempts, force);
    }

    public PullOptions withForce(boolean f) {
        return new PullOptions(threads, attempts, f);
    }
}
