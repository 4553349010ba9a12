package io.pinshard.reader.loader;

import io.pinshard.reader.Dataset;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Keeps a streamed dataset's shards ({@link Dataset#isStreamed()}) mapped ahead of a loader's workers, within the
 * source's cache limit. It replays this rank's epoch order on a plan of its own (the same function of seed, epoch
 * and options as the workers' {@link EpochPlan}) as a list of runs: consecutive samples from one shard, which in
 * quasi-random order are whole shard-local windows. From the consumer's next batch onward, through the next
 * epoch (which the workers fill ahead), the shards of those runs in order of first use, as many as the limit
 * holds, are the wanted set: it evicts every mapped shard outside that set, then fetches the wanted ones in order.
 * Since it knows the future order exactly, it keeps the shards needed soonest; a shard whose windows are spread
 * over an epoch may be let go between them when the limit is tight.
 *
 * <p>Workers never wait on it for correctness: a worker that finds its shard not mapped maps it itself (see
 * {@link Dataset#pin}), and eviction waits for reads inside the shard. A shard that cannot be fetched is left to
 * the worker that needs it, which reports it under the loader's error policy. An epoch resumed on another world
 * size follows another split than this plain plan: its shards are fetched on demand.
 *
 * <p>One thread, {@code <loader>-prefetch}, from the loader's open to its close. It allocates only when it
 * computes an epoch's runs (arrays made once, reused).
 */
final class ShardPrefetcher implements Runnable {
    private static final long IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final Loader loader;
    private final Dataset dataset;
    private final EpochPlan plan;
    private final long limit;
    private final int batchSize;
    /** Runs of two epochs: [slot][run]; slot = epoch & 1. */
    private final int[][] runShard = new int[2][];
    private final long[][] runLastBatch = new long[2][];
    private final int[] runCount = new int[2];
    private final int[] runsEpoch = {-1, -1};
    private final boolean[] wanted;
    private final int[] order;
    private final Thread thread;
    private volatile boolean stopped;
    private volatile Throwable lastFailure;

    ShardPrefetcher(Loader loader, Dataset dataset, LoaderOptions options, long[] firstRecord) {
        this.loader = loader;
        this.dataset = dataset;
        this.plan = new EpochPlan(dataset.size(), firstRecord, options);
        this.limit = dataset.cacheLimitBytes();
        this.batchSize = options.batchSize();
        this.wanted = new boolean[dataset.shardCount()];
        this.order = new int[dataset.shardCount()];
        this.thread = new Thread(this, loader.name() + "-prefetch");
        this.thread.setDaemon(true);
    }

    /**
     * Refuses what cannot stream within the limit: random order over a dataset larger than it (every shard is
     * wanted all the time), or a limit below two of its largest shards (two windows: the one read and the next).
     */
    static void check(Dataset dataset, LoaderOptions options) {
        long limit = dataset.cacheLimitBytes();
        long total = dataset.manifest().bytes();
        if (limit >= total) {
            return;
        }
        if (options.order() == SampleOrder.RANDOM) {
            throw new IllegalArgumentException("random order over " + dataset.location() + " (" + total
                + " bytes) needs every shard all the time, but the cache limit is " + limit + " bytes: use "
                + "quasi-random order (reads shard-local windows, fetched ahead in the order they are needed) or "
                + "a cache limit of at least the dataset's size");
        }
        long largest = 0;
        for (int s = 0; s < dataset.shardCount(); s++) {
            largest = Math.max(largest, dataset.shardBytes(s));
        }
        if (limit < 2 * largest) {
            throw new IllegalArgumentException("the cache limit of " + limit + " bytes for " + dataset.location()
                + " holds less than two of its largest shards (" + largest + " bytes each): raise it to at least "
                + 2 * largest);
        }
    }

    void start() {
        thread.start();
    }

    /** The consumer moved on: look again now rather than at the next poll. */
    void wake() {
        LockSupport.unpark(thread);
    }

    /** The last fetch that failed here (the worker needing that shard reports it), or null. */
    Throwable lastFailure() {
        return lastFailure;
    }

    /** Stops the thread (interrupting a download in progress) and waits for it. */
    void stop() {
        stopped = true;
        thread.interrupt();
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void run() {
        while (!stopped && !dataset.isClosed()) {
            int epoch = loader.currentEpoch();
            if (epoch < 0 || !step(epoch, loader.batchInEpoch())) {
                LockSupport.parkNanos(this, IDLE_PARK_NANOS);
            }
        }
    }

    /**
     * One look: the wanted set from batch {@code batch} of {@code epoch} on, evictions, then the first wanted shard
     * not mapped yet fetched. True when it fetched one (look again at once), false when everything wanted is mapped.
     */
    private boolean step(int epoch, long batch) {
        int count = wantedFrom(epoch, batch);
        for (int s = 0; s < wanted.length && !stopped; s++) {
            if (!wanted[s] && dataset.isLoaded(s)) {
                dataset.evict(s);
            }
        }
        for (int i = 0; i < count && !stopped; i++) {
            int shard = order[i];
            if (!dataset.isLoaded(shard)) {
                try {
                    dataset.load(shard);
                } catch (RuntimeException e) {
                    if (stopped || dataset.isClosed()) {
                        return false;
                    }
                    lastFailure = e; // the worker that needs this shard fetches it again and reports it
                    wanted[shard] = false;
                    continue;
                }
                return true;
            }
        }
        return false;
    }

    /** Fills {@link #wanted} and {@link #order}: shards in order of first use from the batch on, within the limit. */
    private int wantedFrom(int epoch, long batch) {
        Arrays.fill(wanted, false);
        long bytes = 0;
        int count = 0;
        for (int e = epoch; e <= epoch + 1 && e >= 0; e++) {
            int slot = runsOf(e);
            long from = e == epoch ? batch : 0;
            for (int r = 0; r < runCount[slot]; r++) {
                if (runLastBatch[slot][r] < from) {
                    continue;
                }
                int shard = runShard[slot][r];
                if (wanted[shard]) {
                    continue;
                }
                long size = dataset.shardBytes(shard);
                if (bytes + size > limit) {
                    return count;
                }
                bytes += size;
                wanted[shard] = true;
                order[count++] = shard;
            }
        }
        return count;
    }

    /** The runs of {@code epoch} on this rank's plain split, computed once per epoch; its slot. */
    private int runsOf(int epoch) {
        int slot = epoch & 1;
        if (runsEpoch[slot] == epoch) {
            return slot;
        }
        plan.prepare(slot, epoch);
        long samples = plan.samplesPerRank();
        if (runShard[slot] == null) {
            runShard[slot] = new int[16];
            runLastBatch[slot] = new long[16];
        }
        int count = 0;
        int previous = -1;
        for (long p = 0; p < samples; p++) {
            int record = plan.recordAt(slot, p);
            int shard = record < 0 ? -1 : dataset.shardOf(record);
            if (shard < 0) {
                continue;
            }
            if (shard != previous || count == 0) {
                if (count == runShard[slot].length) {
                    runShard[slot] = Arrays.copyOf(runShard[slot], 2 * count);
                    runLastBatch[slot] = Arrays.copyOf(runLastBatch[slot], 2 * count);
                }
                runShard[slot][count++] = shard;
                previous = shard;
            }
            runLastBatch[slot][count - 1] = p / batchSize;
        }
        runCount[slot] = count;
        runsEpoch[slot] = epoch;
        return slot;
    }
}
