package io.pinshard.reader;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * Guards memory that {@link #close()} releases (a dataset's mappings, a loader's batch slots) against readers on
 * other threads:
 * a closed flag and a count of active readers in one word. {@link #acquire()} refuses once closed, naming
 * what was closed (like Arrow's {@code ensureAccessible}); {@link #close()} sets the flag and then waits until
 * every reader inside has called {@link #release()}, so the caller may unmap afterwards. Closing twice, or
 * from several threads at once, is harmless. Allocation-free; a reader must not call {@code close()} while it
 * holds the guard (it would wait for itself).
 */
public final class ReadGuard {
    private static final long CLOSED = Long.MIN_VALUE;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(ReadGuard.class, "state", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String what;
    @SuppressWarnings("unused") // accessed through STATE
    private volatile long state;

    /** @param what how errors name the guarded resource, e.g. "dataset /data/imagenet" */
    public ReadGuard(String what) {
        this.what = what;
    }

    /** Enters a read; throws {@link IllegalStateException} naming the resource when it is closed. */
    public void acquire() {
        if (!tryAcquire()) {
            throw closedException();
        }
    }

    /** Enters a read; false (and nothing to release) when the resource is closed. */
    public boolean tryAcquire() {
        for (;;) {
            long s = (long) STATE.getVolatile(this);
            if (s < 0) {
                return false;
            }
            if (STATE.compareAndSet(this, s, s + 1)) {
                return true;
            }
        }
    }

    /** Leaves a read entered by {@link #acquire()} or a successful {@link #tryAcquire()}. */
    public void release() {
        STATE.getAndAdd(this, -1L);
    }

    public boolean isClosed() {
        return (long) STATE.getVolatile(this) < 0;
    }

    /** The exception every use after close gets. */
    public IllegalStateException closedException() {
        return new IllegalStateException(what + " is closed");
    }

    /**
     * Refuses new reads and waits for the active ones to finish.
     *
     * <p>One exception to waiting: once a guarded read has faulted on a changed file ({@link #mappingFaulted()}),
     * HotSpot may have thrown its asynchronous error between an {@code acquire} and its {@code release}, so the
     * count can stay above zero with no reader inside. Then, after waiting {@value #FAULTED_WAIT_MILLIS} ms,
     * close gives up and returns false: the caller must leave the memory to the garbage collector rather than
     * release it under a reader that might still be there.
     *
     * @return {@link Outcome#CLOSED}: this call closed it and no reader is inside, release the memory now;
     *         {@link Outcome#ALREADY_CLOSED}; or {@link Outcome#READERS_MAY_REMAIN} after a fault
     */
    public Outcome close() {
        long before = (long) STATE.getAndBitwiseOr(this, CLOSED);
        long deadline = 0;
        for (int spins = 0; ((long) STATE.getVolatile(this) & ~CLOSED) != 0; spins++) {
            if (spins < 100) {
                Thread.onSpinWait();
                continue;
            }
            if (faultSeen) {
                long now = System.nanoTime();
                if (deadline == 0) {
                    deadline = now + FAULTED_WAIT_MILLIS * 1_000_000L;
                } else if (now - deadline > 0) {
                    return before >= 0 ? Outcome.READERS_MAY_REMAIN : Outcome.ALREADY_CLOSED;
                }
            }
            LockSupport.parkNanos(10_000); // a reader is inside one record: microseconds
        }
        return before >= 0 ? Outcome.CLOSED : Outcome.ALREADY_CLOSED;
    }

    /**
     * Closes only when no reader is inside, without waiting: true when this call closed it (release the memory
     * now), false when a reader is inside or it was closed already (nothing changed).
     */
    public boolean tryClose() {
        return STATE.compareAndSet(this, 0L, CLOSED);
    }

    /** What {@link #close()} found. */
    public enum Outcome {
        CLOSED, ALREADY_CLOSED, READERS_MAY_REMAIN
    }

    static final long FAULTED_WAIT_MILLIS = 1_000;
    private static volatile boolean faultSeen;

    /** Records that a guarded read of some mapping faulted (a file changed under it); see {@link #close()}. */
    public static void mappingFaulted() {
        faultSeen = true;
    }

    @Override
    public String toString() {
        return what + (isClosed() ? " (closed)" : "");
    }
}
