package io.pinshard.s3.transfer;

import java.time.Duration;
import java.util.Objects;

/**
 * How {@link DatasetPull} downloads.
 *
 * @param threads     shards downloaded at once
 * @param attempts    tries per shard (a body cut off midway resumes from what arrived), after the SDK's own
 *                    retries of each request
 * @param callTimeout the most one shard's download may take, every attempt included
 * @param force       replace a different dataset in the destination directory, and delete shard files it does not
 *                    list
 */
public record PullOptions(int threads, int attempts, Duration callTimeout, boolean force) {
    public PullOptions {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1: " + threads);
        }
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1: " + attempts);
        }
        Objects.requireNonNull(callTimeout, "callTimeout");
        if (callTimeout.isNegative() || callTimeout.isZero()) {
            throw new IllegalArgumentException("callTimeout must be positive: " + callTimeout);
        }
    }

    /** 4 threads, 5 attempts within 5 minutes per shard (S3Settings' defaults), nothing replaced. */
    public static PullOptions defaults() {
        return new PullOptions(4, 5, Duration.ofMinutes(5), false);
    }

    public PullOptions withThreads(int n) {
        return new PullOptions(n, attempts, callTimeout, force);
    }

    /** The attempts and time per shard of {@code --s3-max-attempts} and {@code --s3-timeout}. */
    public PullOptions withRetries(int maxAttempts, Duration timeout) {
        return new PullOptions(threads, maxAttempts, timeout, force);
    }

    public PullOptions withForce(boolean f) {
        return new PullOptions(threads, attempts, callTimeout, f);
    }
}
