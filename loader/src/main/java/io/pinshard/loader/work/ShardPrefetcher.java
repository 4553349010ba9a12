package io.pinshard.loader.work;

import io.pinshard.loader.options.SampleOrder;
import io.pinshard.loader.options.SamplingOptions;
import io.pinshard.loader.sample.EpochPlan;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.MapListener;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;

/**
 * Keeps a streamed dataset's shards (those its source fetches: {@link Dataset#fetchConcurrency()}) mapped ahead of a loader's workers, within the
 * source's cache limit. It replays this rank's epoch order on a plan of its own (the same function of seed, epoch
 * and options as the workers' {@link io.pinshard.loader.sample.EpochPlan}) as a list of runs: consecutive samples from one shard, which in
 * quasi-random order are whole shard-local windows (interleaved windows: a run spans its group). From the consumer's next batch on, through the next epoch (which
 * the workers fill ahead), that gives each shard's next use: it fetches shards in that order while they fit. A shard
 * with no use left in this epoch and the next goes at once; a shard the workers need now may take the room of the
 * mapped shard used last (Belady), unless that one is used before it or by the batches the workers may be filling
 * now (the ring's slots past the consumer: those stay, even past the limit). A fetch ahead never evicts.
 *
 * <p>Workers never wait on it for correctness: a worker that finds its shard not mapped maps it itself (see
 * {@link Dataset#pin}), and eviction waits for reads inside the shard. A shard that cannot be fetched is left to
 * the worker that needs it, which reports it under the loader's error policy. An epoch resumed on another world
 * size follows another split than this plain plan: its shards are fetched on demand.
 *
 * <p>One planning thread, {@code <loader>-prefetch}, and {@link Dataset#fetchConcurrency()} fetch threads,
 * {@code <loader>-fetch-N}, all from the loader's open to its close. The planner hands shards to the fetchers
 * (several downloads in flight hide the store's latency and the cache's {@code fsync}: one at a time, a shard of
 * a 62-record window had to arrive in the 22 ms its records take to decode); shards in flight count against the
 * limit as if mapped and are never chosen to evict. It allocates only when it computes an epoch's runs (arrays
 * made once, reused) and one task per shard fetched.
 *
 * <p>A shard mapped by anyone but the fetchers (a worker that found it missing because the planner had not run
 * since the consumer moved on: a loaded machine, a fast consumer) first makes room the same way, on that thread,
 * as a shard the workers need now ({@link #beforeMap}), and counts as held while it is being mapped. Without that,
 * nothing evicted while the planner was late: the workers mapped the next shards beside those the consumer had left
 * (a shard kept for the next epoch stays until a fetch needs its room), five shards where the limit held two.
 */
public final class ShardPrefetcher implements Runnable, MapListener {
    private static final long IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final LoaderControl control;
    private final Dataset dataset;
    private final EpochPlan plan;
    private final long limit;
    /** The limit holds the whole dataset: nothing is ever evicted, the cache stays warm for the next run. */
    private final boolean keepAll;
    private final int batchSize;
    /** Batches the workers may be filling ahead of the consumer: their shards are kept even past the limit. */
    private final int inFlight;
    private final long batchesPerEpoch;
    /** Runs of two epochs: [slot][run]; slot = epoch & 1. */
    private final int[][] runShard = new int[2][];
    private final long[][] runFirstBatch = new long[2][];
    private final long[][] runLastBatch = new long[2][];
    private final int[] runCount = new int[2];
    private final int[] runsEpoch = {-1, -1};
    /** Per shard: the batch it is next read at (see {@link #nextUses}). */
    private final long[] nextUse;
    /**
     * Per shard, {@link #IDLE}, {@link #FETCHING} (a fetcher has it) or {@link #FAILED} (its fetch failed here:
     * left to the workers, which report it under the error policy; not retried here before the next epoch).
     */
    private final AtomicIntegerArray state;
    private static final int IDLE = 0;
    private static final int FETCHING = 1;
    private static final int FAILED = 2;
    /** A thread other than the fetchers maps it: room was made for it ({@link #beforeMap}), it counts as held. */
    private static final int WORKER = 3;
    /** Held through a look ({@link #step}) or a room-making for a mapping ({@link #beforeMap}): one at a time. */
    private final Object planLock = new Object();
    private final int concurrency;
    private final ExecutorService fetchers;
    private final int[] order;
    private final Thread thread;
    private volatile boolean stopped;

    private ShardPrefetcher(LoaderControl control, Dataset dataset, SamplingOptions options, int ringSlots,
                            long[] firstRecord) {
        this.control = control;
        this.dataset = dataset;
        this.plan = new EpochPlan(dataset.size(), firstRecord, options);
        this.limit = dataset.cacheLimitBytes();
        this.keepAll = limit >= dataset.manifest().bytes();
        this.batchSize = options.batchSize();
        this.inFlight = ringSlots + 1;
        this.batchesPerEpoch = plan.batchesPerEpoch();
        this.nextUse = new long[dataset.shardCount()];
        this.state = new AtomicIntegerArray(dataset.shardCount());
        this.order = new int[dataset.shardCount()];
        this.thread = new Thread(this, control.name() + "-prefetch");
        this.thread.setDaemon(true);
        this.concurrency = dataset.fetchConcurrency();
        AtomicInteger number = new AtomicInteger();
        ThreadPoolExecutor pool = (ThreadPoolExecutor) Executors.newFixedThreadPool(concurrency, task -> {
            Thread fetcher = new Thread(task, control.name() + "-fetch-" + number.getAndIncrement());
            fetcher.setDaemon(true);
            return fetcher;
        });
        pool.prestartAllCoreThreads(); // started once here, not on the first fetch of some epoch
        this.fetchers = pool;
        // From here on, whether or not the planner runs: a mapping by anyone else makes room first (beforeMap).
        dataset.mapListener(this);
    }

    /**
     * A prefetcher for {@code dataset}, not started; null when its source has nothing to fetch ({@link
     * Dataset#fetchConcurrency()} 0: every shard a local file). {@code ringSlots}: the loader's batch slots, the
     * batches its workers may be filling ahead.
     */
    public static ShardPrefetcher forDataset(LoaderControl control, Dataset dataset, SamplingOptions options,
                                             int ringSlots, long[] firstRecord) {
        return dataset.fetchConcurrency() == 0 ? null
            : new ShardPrefetcher(control, dataset, options, ringSlots, firstRecord);
    }

    /**
     * Refuses what cannot stream within the limit: random order over a dataset larger than it (every shard is
     * wanted all the time), a limit below two of its largest shards (two windows: the one read and the next), or
     * below the shards of a group of interleaved quasi-random windows and one more. {@code options} are the loader's
     * resolved ones (no automatic interleave left).
     */
    public static void check(Dataset dataset, SamplingOptions options) {
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
        long largest = dataset.largestShardBytes();
        if (limit < 2 * largest) {
            throw new IllegalArgumentException("the cache limit of " + limit + " bytes for " + dataset.location()
                + " holds less than two of its largest shards (" + largest + " bytes each): raise it to at least "
                + 2 * largest);
        }
        // A group of interleaved windows reads up to that many shards at once, plus one fetched ahead.
        int interleave = options.quasiRandomInterleave();
        if (options.order() == SampleOrder.QUASI_RANDOM && limit < (interleave + 1L) * largest) {
            int fits = (int) Math.max(1, limit / largest - 1);
            throw new IllegalArgumentException("quasi-random order over " + dataset.location() + " shuffles "
                + interleave + " windows together (of up to " + interleave + " shards, " + largest + " bytes at most "
                + "each), plus one shard fetched ahead, but the cache limit of " + limit + " bytes holds "
                + limit / largest + ": raise the limit to at least " + (interleave + 1L) * largest + " bytes or "
                + "interleave fewer windows (quasiRandomInterleave(" + fits + "), --interleave " + fits + ")");
        }
    }

    public void start() {
        thread.start();
    }

    /** The planning thread: unparked when the consumer moved on, to look again now rather than at the next poll. */
    public Thread thread() {
        return thread;
    }

    /** A fetch ended: look again now rather than at the next poll. */
    private void wake() {
        LockSupport.unpark(thread);
    }

    /**
     * Stops planning: no fetch starts after this returns, while those in flight go on (a worker waiting for one of
     * them gets its shard instead of fetching it again itself). {@link io.pinshard.loader.Loader#close} calls it before it stops the
     * workers, and {@link #stop} after.
     */
    public void stopPlanning() {
        stopped = true;
        LockSupport.unpark(thread);
        LoaderControl.joinAll(thread);
    }

    /** Stops planning and the fetchers (interrupting downloads still in progress) and waits for them. */
    public void stop() {
        stopPlanning();
        dataset.mapListener(null);
        fetchers.shutdownNow();
        boolean interrupted = false;
        while (!fetchers.isTerminated()) {
            try {
                fetchers.awaitTermination(1, TimeUnit.MINUTES);
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
        int lastEpoch = -1;
        while (!stopped && !dataset.isClosed()) {
            long version = control.positionVersion();
            int epoch = control.currentEpoch();
            long batch = control.batchInEpoch();
            if ((version & 1) != 0 || version != control.positionVersion()) {
                Thread.onSpinWait(); // an epoch is starting: the pair was torn
                continue;
            }
            if (epoch != lastEpoch) {
                for (int s = 0; s < state.length(); s++) {
                    state.compareAndSet(s, FAILED, IDLE); // a new epoch tries the shards that failed here again
                }
                lastEpoch = epoch;
            }
            if (epoch >= 0) {
                step(epoch, batch);
            }
            LockSupport.parkNanos(this, IDLE_PARK_NANOS); // until the consumer moves on or a fetch ends
        }
    }

    /**
     * One look from batch {@code batch} of {@code epoch}: each shard's next use, then evictions, then fetches handed
     * to the fetchers, in order of next use, while fewer than {@link #concurrency} are in flight and they fit. While
     * a shard the workers need now is missing, only such shards are fetched: four downloads sharing the store and
     * the cores would make the first of them arrive last.
     *
     * <p>Eviction follows the known future: a mapped shard with no use left in this epoch and the next goes at once.
     * A fetch ahead only fills room that is free; a shard the workers need now may take the room of the mapped
     * shard used last (Belady), as long as it is used after that one and not by the batches the workers may be
     * filling now, else it goes past the limit. So each shard is fetched once per epoch, and a shard under the
     * workers' hands is never taken from them.
     */
    private void step(int epoch, long batch) {
        synchronized (planLock) {
            stepLocked(epoch, batch);
        }
    }

    private void stepLocked(int epoch, long batch) {
        int count = nextUses(epoch, batch);
        long busyUntil = batch + inFlight;
        long heldBytes = 0; // mapped, or being fetched
        int fetching = 0;
        for (int s = 0; s < nextUse.length && !stopped; s++) {
            if (state.get(s) == FETCHING) {
                heldBytes += dataset.shardBytes(s);
                fetching++;
            } else if (state.get(s) == WORKER) {
                heldBytes += dataset.shardBytes(s); // being mapped by a worker, its room made
            } else if (dataset.isLoaded(s)) {
                if (nextUse[s] == Long.MAX_VALUE && !keepAll) {
                    dataset.evict(s); // done for this epoch and the next
                } else {
                    heldBytes += dataset.shardBytes(s);
                }
            }
        }
        boolean workersWait = false; // a shard under the workers' batches is not mapped yet
        for (int i = 0; i < count && fetching < concurrency && !stopped; i++) {
            int shard = order[i];
            boolean busy = nextUse[shard] <= busyUntil;
            if (!busy && workersWait) {
                break; // the workers wait for a shard: it has the store and the cores to itself (an epoch's start)
            }
            if (dataset.isLoaded(shard)) {
                continue;
            }
            if (state.get(shard) != IDLE) {
                // a failed one is the workers' to report
                workersWait |= busy && (state.get(shard) == FETCHING || state.get(shard) == WORKER);
                continue;
            }
            workersWait |= busy;
            long size = dataset.shardBytes(shard);
            while (heldBytes + size > limit) {
                if (!busy) {
                    // A fetch ahead never evicts a shard that is still to be read: with several fetches in flight,
                    // making room that way sent shards fetched for the next epoch (or for later in this one) out
                    // and back in again. It waits for the consumer to finish a shard instead.
                    return;
                }
                int victim = lastUsedMapped(nextUse[shard], busyUntil);
                if (victim < 0) {
                    break; // the workers need it now: past the limit rather than stalled
                }
                dataset.evict(victim);
                heldBytes -= dataset.shardBytes(victim);
            }
            state.set(shard, FETCHING);
            heldBytes += size;
            fetching++;
            try {
                fetchers.execute(() -> fetch(shard));
            } catch (RejectedExecutionException stopping) {
                state.set(shard, IDLE); // stop() shut the fetchers down after this look began
                return;
            }
        }
    }

    /** On a fetcher: maps {@code shard} (the source downloads and verifies it first), then wakes the planner. */
    private void fetch(int shard) {
        int outcome = IDLE;
        try {
            if (!stopped) {
                dataset.shard(shard);
            }
        } catch (RuntimeException e) {
            if (!stopped && !dataset.isClosed()) {
                outcome = FAILED; // the worker that needs it fetches it again and reports it
            }
        } finally {
            state.set(shard, outcome);
            wake();
        }
    }

    /**
     * Called by the dataset on the thread about to map shard {@code index} (not mapped): unless a fetcher of this
     * prefetcher maps it (its room counted when it was handed out), makes room for it from the consumer's position as
     * for a shard the workers need now (shards with no use left in this epoch and the next go; while it does not fit,
     * the mapped shard used last goes, unless the batches the workers may be filling read it: then past the limit),
     * and counts it as held until {@link #afterMap}. So the shards held never depend on whether the planner ran since
     * the consumer moved on. Runs no download; it may wait for reads inside a shard it evicts.
     */
    @Override
    public void beforeMap(int index) {
        if (state.get(index) == FETCHING) {
            return; // a fetcher's own mapping (or one in flight that this thread will wait for): counted already
        }
        synchronized (planLock) {
            if (stopped || keepAll || dataset.isClosed()) {
                return;
            }
            long version = control.positionVersion();
            int epoch = control.currentEpoch();
            long batch = control.batchInEpoch();
            if ((version & 1) != 0 || version != control.positionVersion() || epoch < 0) {
                return; // an epoch is starting (torn) or none started: the planner's first look makes room
            }
            if (!state.compareAndSet(index, IDLE, WORKER) && state.get(index) != FAILED) {
                return; // another thread maps it, its room made
            }
            nextUses(epoch, batch);
            long busyUntil = batch + inFlight;
            long heldBytes = 0;
            for (int s = 0; s < nextUse.length; s++) {
                if (s == index) {
                    continue;
                }
                int now = state.get(s);
                if (now == FETCHING || now == WORKER) {
                    heldBytes += dataset.shardBytes(s);
                } else if (dataset.isLoaded(s)) {
                    if (nextUse[s] == Long.MAX_VALUE) {
                        dataset.evict(s); // done for this epoch and the next
                    } else {
                        heldBytes += dataset.shardBytes(s);
                    }
                }
            }
            long size = dataset.shardBytes(index);
            while (heldBytes + size > limit) {
                int victim = lastUsedMapped(busyUntil, busyUntil);
                if (victim < 0 || victim == index) {
                    break; // the rest are under the workers' batches: past the limit rather than stalled
                }
                dataset.evict(victim);
                heldBytes -= dataset.shardBytes(victim);
            }
        }
    }

    /** The mapping {@link #beforeMap} made room for ended: the shard counts as mapped now (or not at all). */
    @Override
    public void afterMap(int index) {
        if (state.compareAndSet(index, WORKER, IDLE)) {
            wake();
        }
    }

    /** The mapped shard used last, if after {@code after} and not before {@code busyUntil}; -1 when there is none. */
    private int lastUsedMapped(long after, long busyUntil) {
        int victim = -1;
        for (int s = 0; s < nextUse.length; s++) {
            if (dataset.isLoaded(s) && state.get(s) != FETCHING && state.get(s) != WORKER && nextUse[s] > after
                && nextUse[s] > busyUntil
                && (victim < 0 || nextUse[s] > nextUse[victim])) {
                victim = s;
            }
        }
        return victim;
    }

    /**
     * Fills {@link #nextUse} (the first batch, counted from {@code batch}'s epoch, at which each shard is read again;
     * {@link Long#MAX_VALUE} for none in this epoch and the next) and {@link #order} (shards by next use); returns
     * how many shards {@link #order} holds.
     */
    private int nextUses(int epoch, long batch) {
        Arrays.fill(nextUse, Long.MAX_VALUE);
        int count = 0;
        for (int e = epoch; e <= epoch + 1 && e >= 0; e++) {
            int slot = runsOf(e);
            long from = e == epoch ? batch : 0;
            long base = e == epoch ? 0 : batchesPerEpoch;
            for (int r = 0; r < runCount[slot]; r++) {
                if (runLastBatch[slot][r] < from) {
                    continue;
                }
                int shard = runShard[slot][r];
                if (nextUse[shard] != Long.MAX_VALUE) {
                    continue;
                }
                nextUse[shard] = base + Math.max(from, runFirstBatch[slot][r]);
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
            runFirstBatch[slot] = new long[16];
            runLastBatch[slot] = new long[16];
        }
        // Interleaved quasi-random windows alternate between up to that many shards: a shard met again among the
        // last runs extends its run, so the runs stay one per window, not one per sample.
        int recent = Math.max(1, plan.interleave());
        int count = 0;
        for (long p = 0; p < samples; p++) {
            int record = plan.recordAt(slot, p);
            int shard = record < 0 ? -1 : dataset.shardOf(record);
            if (shard < 0) {
                continue;
            }
            int oldest = Math.max(0, count - recent);
            int run = count - 1;
            while (run >= oldest && runShard[slot][run] != shard) {
                run--;
            }
            if (run < oldest) {
                if (count == runShard[slot].length) {
                    runShard[slot] = Arrays.copyOf(runShard[slot], 2 * count);
                    runFirstBatch[slot] = Arrays.copyOf(runFirstBatch[slot], 2 * count);
                    runLastBatch[slot] = Arrays.copyOf(runLastBatch[slot], 2 * count);
                }
                runFirstBatch[slot][count] = p / batchSize;
                runShard[slot][count] = shard;
                run = count++;
            }
            runLastBatch[slot][run] = p / batchSize;
        }
        runCount[slot] = count;
        runsEpoch[slot] = epoch;
        return slot;
    }
}
