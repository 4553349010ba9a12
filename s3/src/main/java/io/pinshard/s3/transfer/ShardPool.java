package io.pinshard.s3.transfer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/** Runs one task per shard on a bounded pool; the first failure stops the rest and is rethrown. */
final class ShardPool {
    private ShardPool() {
    }

    /**
     * Runs {@code task} for positions {@code 0..count-1} on at most {@code threads} daemon threads named
     * {@code name-N}.
     *
     * @param what the job, for the message of a failure that is not a RuntimeException ("push to s3://...")
     */
    static void forEach(int count, int threads, String name, String what, IntConsumer task) {
        AtomicInteger threadNumber = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(threads, Math.max(1, count)), r -> {
            Thread t = new Thread(r, name + "-" + threadNumber.getAndIncrement());
            t.setDaemon(true);
            return t;
        });
        // Set by the first failure: a queued task a thread takes before the pool is shut down does not start.
        AtomicBoolean failed = new AtomicBoolean();
        try {
            List<Future<?>> futures = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                int position = i;
                futures.add(pool.submit(() -> {
                    if (failed.get()) {
                        return;
                    }
                    try {
                        task.accept(position);
                    } catch (RuntimeException | Error e) {
                        failed.set(true);
                        throw e;
                    }
                }));
            }
            for (Future<?> future : futures) {
                try {
                    future.get();
                } catch (ExecutionException e) {
                    pool.shutdownNow();
                    if (e.getCause() instanceof RuntimeException runtime) {
                        throw runtime;
                    }
                    throw new TransferException(what + " failed: " + e.getCause(), e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new TransferException(what + " interrupted", e);
                }
            }
        } finally {
            pool.shutdownNow();
            try {
                pool.awaitTermination(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
