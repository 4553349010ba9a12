package io.pinshard.serve;

import static io.pinshard.serve.RingDescriptor.*;

import io.pinshard.reader.Dataset;
import io.pinshard.reader.ReadGuard;
import io.pinshard.loader.ring.Batch;
import io.pinshard.loader.Epoch;
import io.pinshard.loader.Loader;
import io.pinshard.loader.options.AugmentOptions;
import io.pinshard.loader.options.LoaderMode;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.LoaderState;
import io.pinshard.loader.options.SamplingOptions;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import org.agrona.CloseHelper;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * {@code pinshard serve}: a loader whose slots are a shared {@link RingFile}, driven by one client at a time
 * through the ring's command block (docs/RING.md). Two threads:
 * <ul>
 *   <li>the <b>publisher</b> runs the client's commands (start an epoch, resume from a state) and hands each batch
 *       the loader finishes to the client by writing its slot header and releasing its sequence;</li>
 *   <li>the <b>control</b> thread beats the server heartbeat, closes each loader batch once the client released its
 *       slot (so the workers refill it), and watches the client: a new session, a detach, or a dead client
 *       (process gone, or no heartbeat for the client timeout) reclaims every slot it held.</li>
 * </ul>
 * Nothing is copied: the workers write into the slot, the client reads the same pages.
 *
 * <p>Another process can truncate or overwrite the file meanwhile. Every access to the ring is a JVM-guarded one
 * (Agrona's {@link UnsafeBuffer}; the loader lets no native code write it), so a truncation faults as an
 * {@link InternalError}, which either thread turns into the ring's error; the control thread also checks the file
 * (length and header, through its channel) at every heartbeat. Either way the server stops with an error naming the
 * ring. What it reads back from the client's fields only selects among its own actions (docs/RING.md, §9).
 */
public final class RingServer implements AutoCloseable {
    /** Server heartbeat period; the client gives up after a few missed beats (docs/RING.md, "Liveness"). */
    static final long HEARTBEAT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** The longest park of a thread waiting for a command or a client (well under the heartbeat). */
    static final long SLOW_IDLE_MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final Dataset dataset;
    private final LoaderOptions options;
    private final RingFile ring;
    private final Loader loader;
    /** Views of the two control blocks, wrapped once before the threads start (so both threads may use them). */
    private final RingServerBlock serverBlock = new RingServerBlock();
    private final RingClientBlock clientBlock = new RingClientBlock();
    /** Slot-header views re-wrapped per slot: one per thread. */
    private final RingSlotHeader publisherSlot = new RingSlotHeader();
    private final RingSlotHeader controlSlot = new RingSlotHeader();
    private final UnsafeBuffer buffer;
    private final Settings settings;
    private final Consumer<Map<String, Object>> events;
    private final int slots;
    private final AtomicReferenceArray<Batch> held;
    private final long[] heldSequence;
    private final AtomicInteger outstanding = new AtomicInteger();
    private final CountDownLatch stopped = new CountDownLatch(1);
    /** Guards {@link #failure}; not this: close() holds this while it joins the threads, which may be failing. */
    private final Object failureLock = new Object();
    private final Thread publisher;
    private final Thread control;
    /** The session being served, 0 when none; written by the control thread. */
    private volatile long attachedSession;
    private volatile boolean stopping;
    private volatile String failure;
    private Epoch epoch;
    /** Start-up steps in ms (loader_open_ms, ring_ready_ms), reported in the ready event. */
    private final Map<String, Object> timings = new LinkedHashMap<>();
    /** When the publisher saw the current command (System.nanoTime), and whether a batch was published yet. */
    private long commandSeenNanos;
    private boolean firstBatchPublished;
    private long nextSequence = 1;
    private long reclaimed;

    /**
     * How the server treats its clients.
     *
     * @param clientTimeoutNanos a client whose heartbeat has not moved for this long is taken for dead
     * @param ownerPid           stop (and unlink the ring) when this process exits; 0 for none
     * @param once               stop after the first client detaches or dies
     */
    public record Settings(long clientTimeoutNanos, long ownerPid, boolean once) {
        public Settings {
            if (clientTimeoutNanos <= 0) {
                throw new IllegalArgumentException("the client timeout must be above zero: " + clientTimeoutNanos + " ns");
            }
            if (ownerPid < 0) {
                throw new IllegalArgumentException("the owner pid must be a process id, or 0 for none: " + ownerPid);
            }
        }

        public static Settings defaults() {
            return new Settings(TimeUnit.SECONDS.toNanos(30), 0, false);
        }
    }

    private RingServer(Dataset dataset, LoaderOptions options, Path ringPath, Settings settings,
                       Consumer<Map<String, Object>> events) {
        this.dataset = dataset;
        this.settings = settings;
        this.events = events;
        this.ring = RingFile.prepare(ringPath, options.ring().prefetch());
        this.options = options.toBuilder().allocator(ring).build();
        this.slots = options.ring().prefetch();
        this.held = new AtomicReferenceArray<>(slots);
        this.heldSequence = new long[slots];
        Loader opened = null;
        try {
            long begun = System.nanoTime();
            opened = Loader.open(dataset, this.options);
            long loaderOpened = System.nanoTime();
            timings.put("loader_open_ms", (loaderOpened - begun) / 1e6);
            this.loader = opened;
            this.buffer = ring.buffer();
            serverBlock.wrap(buffer, 0);
            clientBlock.wrap(buffer, 0);
            SamplingOptions sampling = options.sampling();
            AugmentOptions augment = options.augment();
            ring.publish(new RingFile.RingGeometry(sampling.batchSize(), augment.crop(),
                augment.mode() == LoaderMode.EVAL, loader.batchesPerEpoch(), loader.samplesPerEpoch(), dataset.size(),
                sampling.seed(), sampling.rank(), sampling.worldSize(), dataset.classes().size(),
                RingFields.describe(augment.fields(), dataset.fields(), sampling.batchSize(), augment.imageBytes()),
                augment.pixels()));
            timings.put("ring_ready_ms", (System.nanoTime() - loaderOpened) / 1e6);
        } catch (RuntimeException | Error e) {
            CloseHelper.quietClose(opened);
            ring.close(STATUS_FAILED);
            throw e;
        }
        this.publisher = new Thread(this::publish, "serve-publisher");
        this.control = new Thread(this::control, "serve-control");
        publisher.setDaemon(true);
        control.setDaemon(true);
        // A fault of a ring access is reported a little after it, anywhere in the thread, also inside its catch
        // block: whatever ends a thread is a failure of the server.
        publisher.setUncaughtExceptionHandler((thread, e) -> fail(e));
        control.setUncaughtExceptionHandler((thread, e) -> {
            fail(e);
            stopped.countDown(); // the error may have come inside control()'s finally, before its count-down
        });
    }

    /** Builds the loader over the ring at {@code ringPath} and starts serving; the ring is ready on return. */
    public static RingServer start(Dataset dataset, LoaderOptions options, Path ringPath, Settings settings,
                                   Consumer<Map<String, Object>> events) {
        RingServer server = new RingServer(dataset, options, ringPath, settings, events);
        server.event("ready", "ring", server.ring.path().toString(), "slots", server.slots, "batch",
            options.sampling().batchSize(), "crop", options.augment().crop(), "pixels",
            options.augment().pixels().describe(), "batches_per_epoch", server.loader.batchesPerEpoch(),
            "records", dataset.size(), "pid", ProcessHandle.current().pid(), "timings", server.timings);
        server.control.start();
        server.publisher.start();
        return server;
    }

    public Path ringPath() {
        return ring.path();
    }

    public Loader loader() {
        return loader;
    }

    /** The ring file (for leak checks: its live regions). */
    RingFile ringFile() {
        return ring;
    }

    /** The publisher and control threads (for heap-allocation checks). */
    java.util.List<Thread> threads() {
        return java.util.List.of(publisher, control);
    }

    /** Waits until the server stops (owner gone, {@code once} done, a failure, or {@link #close()}). */
    public boolean awaitStop(long timeout, TimeUnit unit) throws InterruptedException {
        return stopped.await(timeout, unit) || control.getState() == Thread.State.TERMINATED;
    }

    /** The failure that stopped the server, or null. */
    public String failure() {
        return failure;
    }

    // ---- publisher thread ----

    private void publish() {
        IdleStrategy idle = new BackoffIdleStrategy(64, 16, 10_000, 200_000); // a stream waiting for a free slot
        IdleStrategy awaitingCommand = slowIdle(64, 16);
        long acked = 0;
        try {
            while (!stopping) {
                long session = attachedSession;
                long command = clientBlock.commandVolatile();
                if (session == 0 || command == acked) {
                    awaitingCommand.idle();
                    continue;
                }
                awaitingCommand.reset();
                idle.reset();
                acked = command;
                commandSeenNanos = System.nanoTime();
                if (startStream(command)) {
                    stream(session, command, idle);
                }
            }
        } catch (RuntimeException | Error e) {
            if (!stopping) {
                fail(e);
            }
        }
    }

    /** Runs command {@code command}; acknowledges it, with the reason when it is refused. */
    private boolean startStream(long command) {
        int kind = clientBlock.commandKind();
        int epochNumber = clientBlock.commandEpoch();
        long startBatch = clientBlock.commandStartBatch();
        reclaimAll(); // a command promises the client holds no slot of the previous stream
        // The control thread may have taken a released slot out of held[] and not yet closed its batch: the
        // loader would still count it as held and refuse the next epoch. It decrements outstanding after close.
        while (outstanding.get() > 0 && !stopping) {
            Thread.onSpinWait();
        }
        CloseHelper.close(epoch);
        epoch = null;
        try {
            if (kind == COMMAND_EPOCH) {
                epoch = loader.epoch(epochNumber);
            } else if (kind == COMMAND_RESUME) {
                SamplingOptions sampling = options.sampling();
                epoch = loader.resume(new LoaderState(epochNumber, startBatch, sampling.seed(), sampling.worldSize(),
                    sampling.rank()));
            } else {
                throw new IllegalArgumentException("unknown command kind " + kind);
            }
        } catch (IllegalArgumentException | IllegalStateException e) {
            ring.message("command refused: " + e.getMessage());
            serverBlock.ackResult(RESULT_REFUSED).ackCommandRelease(command);
            event("refused", "command", command, "reason", e.getMessage());
            return false;
        }
        long remaining = epoch.batches() - epoch.batchesConsumed();
        serverBlock.ackResult(RESULT_OK)
            .streamEpoch(epochNumber)
            .streamFirstSequence(nextSequence)
            .streamStartBatch(epoch.batchesConsumed())
            .streamBatches(remaining)
            .ackCommandRelease(command);
        event("epoch", "epoch", epochNumber, "start_batch", epoch.batchesConsumed(), "batches", remaining);
        return true;
    }

    /** Publishes the stream's batches while it is current: same session, no newer command. */
    private void stream(long session, long command, IdleStrategy idle) {
        long started = System.nanoTime();
        long images = 0;
        while (epoch.hasNext()) {
            while (outstanding.get() >= slots) { // Epoch.next() refuses when every slot is held
                if (!current(session, command)) {
                    return;
                }
                idle.idle();
            }
            idle.reset();
            if (!current(session, command)) {
                return;
            }
            Batch batch = epoch.next();
            int slot = ring.slotOf(batch.address());
            long sequence = nextSequence++;
            RingSlotHeader header = publisherSlot.wrapSlot(buffer, slot)
                .stream(command)
                .index(batch.index())
                .epoch(batch.epoch())
                .size(batch.size())
                .imagesOffset(ring.offsetOf(batch.address()))
                .labelsOffset(ring.offsetOf(batch.labelsAddress()))
                .idsOffset(ring.offsetOf(batch.sampleIdsAddress()));
            heldSequence[slot] = sequence;
            if (!held.compareAndSet(slot, null, batch)) {
                throw new IllegalStateException("the loader handed out slot " + slot + " while it was still held");
            }
            outstanding.incrementAndGet();
            // Release: the pixels (written by the workers, which Epoch.next() synchronised with) and the header
            // above are visible to whoever reads this sequence with acquire semantics.
            header.sequenceRelease(sequence);
            serverBlock.publishedRelease(sequence);
            images += batch.size();
            if (!firstBatchPublished) {
                firstBatchPublished = true; // the start-up's last step: a client's first batch
                event("first_batch", "ms_since_command", (System.nanoTime() - commandSeenNanos) / 1e6);
            }
            if (attachedSession != session) {
                reclaimAll(); // the control thread may have reclaimed before this batch was in held[]
                return;
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        event("epoch_end", "epoch", epoch.epoch(), "images", images, "seconds", seconds,
            "images_per_s", seconds > 0 ? images / seconds : 0.0);
    }

    private boolean current(long session, long command) {
        return !stopping && attachedSession == session && clientBlock.commandVolatile() == command;
    }

    // ---- control thread ----

    private void control() {
        IdleStrategy attached = new BackoffIdleStrategy(16, 8, 20_000, 1_000_000); // slot releases to collect
        IdleStrategy detached = slowIdle(16, 8);
        long nextBeat = 0;
        long heartbeat = 0;
        ClientWatch client = null;
        long lostSession = 0; // a dead client's session stays in the file: never attach it again
        Optional<ProcessHandle> owner = settings.ownerPid() > 0 ? ProcessHandle.of(settings.ownerPid()) : null;
        ProcessLiveness liveness = new ProcessLiveness(); // the control thread's own
        try {
            while (!stopping) {
                int work = collectReleases();
                long session = clientBlock.sessionVolatile();
                if (session != attachedSession && session != lostSession) {
                    if (client != null) {
                        lose(client, "detached");
                        client = null;
                    }
                    lostSession = 0;
                    if (session != 0) {
                        client = attach(session);
                    }
                    work++;
                }
                long now = System.nanoTime();
                if (now >= nextBeat) {
                    RuntimeException damage = ring.damaged(); // also when no access faults: idle, or overwritten
                    if (damage != null) {
                        throw damage;
                    }
                    serverBlock.heartbeatRelease(++heartbeat);
                    nextBeat = now + HEARTBEAT_NANOS;
                    if (client != null) {
                        String lost = client.lost(now, liveness);
                        if (lost != null) {
                            lostSession = attachedSession;
                            lose(client, lost);
                            client = null;
                        }
                    }
                    if (owner != null && !liveness.running(owner)) {
                        event("owner_gone", "pid", settings.ownerPid());
                        stopping = true;
                    }
                }
                (client != null ? attached : detached).idle(work);
            }
        } catch (RuntimeException | Error e) {
            fail(e);
        } finally {
            stopped.countDown();
        }
    }

    /**
     * How a thread with nothing to do for a while waits: parks of up to {@link #SLOW_IDLE_MAX_PARK_NANOS}. At 200
     * µs parks an idle server kept 12 % of a core busy on a VM (each wake-up costs there); a command or a client
     * is then noticed within 10 ms, once per epoch or attach.
     */
    private static IdleStrategy slowIdle(int spins, int yields) {
        return new BackoffIdleStrategy(spins, yields, 10_000, SLOW_IDLE_MAX_PARK_NANOS);
    }

    /** Closes the loader batch of every slot the client released; returns how many. */
    private int collectReleases() {
        int released = 0;
        for (int s = 0; s < slots; s++) {
            Batch batch = held.get(s);
            if (batch != null && controlSlot.wrapSlot(buffer, s).releasedVolatile() == heldSequence[s]
                && held.compareAndSet(s, batch, null)) {
                batch.close(); // before the count drops: the loader must see the slot free when the publisher does
                outstanding.decrementAndGet();
                released++;
            }
        }
        return released;
    }

    private ClientWatch attach(long session) {
        long pid = clientBlock.clientPidVolatile();
        int version = clientBlock.clientVersion();
        reclaimAll();
        ClientWatch client = new ClientWatch(pid, ProcessHandle.of(pid), System.nanoTime());
        attachedSession = session;
        serverBlock.attachedSessionRelease(session);
        event("attached", "client_pid", pid, "session", session, "client_version", version,
            "pid_visible", client.process.isPresent());
        return client;
    }

    private void lose(ClientWatch client, String reason) {
        attachedSession = 0;
        int taken = reclaimAll();
        serverBlock.attachedSessionRelease(0);
        event("detached", "client_pid", client.pid, "reason", reason, "reclaimed_slots", taken);
        if (settings.once()) {
            stopping = true;
        }
    }

    /** Closes every batch still out, whoever holds it; returns how many. Safe from both threads. */
    private int reclaimAll() {
        int taken = 0;
        for (int s = 0; s < slots; s++) {
            Batch batch = held.getAndSet(s, null);
            if (batch != null) {
                batch.close();
                outstanding.decrementAndGet();
                taken++;
            }
        }
        if (taken > 0) {
            synchronized (held) { // not this: close() holds this while it joins the threads
                reclaimed += taken;
                if (!stopping || ring.controlPagesInFile()) { // stopping: maybe for a truncated ring
                    serverBlock.reclaimedRelease(reclaimed);
                }
            }
        }
        return taken;
    }

    /** The attached client's liveness: its process (when visible from here) and its heartbeat. */
    private final class ClientWatch {
        final long pid;
        final Optional<ProcessHandle> process;
        long beat;
        long beatSeenNanos;

        ClientWatch(long pid, Optional<ProcessHandle> process, long now) {
            this.pid = pid;
            this.process = process;
            this.beat = clientBlock.clientHeartbeatVolatile();
            this.beatSeenNanos = now;
        }

        /** Why the client is taken for dead, or null while it lives. */
        String lost(long now, ProcessLiveness liveness) {
            if (process.isPresent() && !liveness.running(process)) {
                return "process " + pid + " exited";
            }
            long current = clientBlock.clientHeartbeatVolatile();
            if (current != beat) {
                beat = current;
                beatSeenNanos = now;
            } else if (now - beatSeenNanos > settings.clientTimeoutNanos()) {
                return "no heartbeat for " + TimeUnit.NANOSECONDS.toSeconds(now - beatSeenNanos) + " s";
            }
            return null;
        }
    }

    // ---- shutdown ----

    /**
     * Records the first failure and stops. An {@link InternalError} here is a guarded access of the ring that faulted
     * (nothing else these threads touch is a mapping); it is reported a little after the access, possibly in this
     * method, so stopping is set first.
     */
    private void fail(Throwable e) {
        stopping = true;
        if (ring.truncated()) {
            // Faults were reported late, maybe between a guard's acquire and release: closes must not wait on them.
            ReadGuard.mappingFaulted();
        }
        Throwable reported = e instanceof InternalError ? ring.faulted(e) : e;
        String message = reported.getMessage() != null ? reported.getMessage() : reported.toString();
        synchronized (failureLock) {
            if (failure == null) {
                failure = message;
                ring.message("server failed: " + message);
                if (ring.controlPagesInFile()) { // a write into lost pages would fault again
                    serverBlock.statusRelease(STATUS_FAILED);
                }
                event("failed", "reason", message);
            }
        }
    }

    /** Stops both threads and the loader, marks the ring stopped (or failed) and unlinks it. Idempotent. */
    @Override
    public synchronized void close() {
        stopping = true;
        boolean interrupted = false;
        try {
            loader.close(); // a publisher waiting in Epoch.next() returns with an exception, which stopping hides
            for (Thread thread : new Thread[] {publisher, control}) {
                while (thread.isAlive()) {
                    try {
                        thread.join();
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            }
            reclaimAll();
            RuntimeException damage = failure == null ? ring.damaged() : null;
            if (damage != null) { // the threads ended before they could say why (a late fault in their failure path)
                fail(damage);
            }
            if (failure != null) { // last: a refusal the publisher wrote after the failure does not hide it
                ring.message("server failed: " + failure);
            }
        } finally {
            ring.close(failure != null ? STATUS_FAILED : STATUS_STOPPED);
            stopped.countDown();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void event(String name, Object... fields) {
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("event", name);
        for (int i = 0; i < fields.length; i += 2) {
            event.put((String) fields[i], fields[i + 1]);
        }
        events.accept(event);
    }

    @Override
    public String toString() {
        return "pinshard serve of " + dataset.directory() + " on " + ring.path();
    }
}
