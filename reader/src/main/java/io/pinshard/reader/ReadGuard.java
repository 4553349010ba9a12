package io.pinshard.reader;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * Guards memory that {@link #close()} releases (a dataset's mappings) against readers on other threads:
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
        for (;;) {
            long s = (long) STATE.getVolatile(this);
            if (s < 0) {
                throw new IllegalStateException(what + " is closed");
            }
            if (STATE.compareAndSet(this, s, s + 1)) {
                return;
            }
        }
    }

    /** Leaves a read entered by {@link #acquire()}. */
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
     * @return true for the call that closed it, false when it was closed already
     */
    public boolean close() {
        long before = (long) STATE.getAndBitwiseOr(this, CLOSED);
        for (int spins = 0; ((long) STATE.getVolatile(this) & ~CLOSED) != 0; spins++) {
            if (spins < 100) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(10_000); // a reader is inside one record: microseconds
            }
        }
        return before >= 0;
    }

    @Override
    public String toString() {
        return what + (isClosed() ? " (closed)" : "");
    }
}
