package io.pinshard.reader.loader;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Keeps native memory alive while guarded reads are in progress: readers bracket each access with
 * {@link #tryAcquire()} / {@link #release()} (one atomic add each, no allocation), and {@link #close()}
 * refuses new readers, then waits for those inside to leave before the owner frees the memory. So a read
 * racing a close on another thread either completes on live memory or is refused; it never touches freed
 * memory. Guarded sections must be short and must not wait on the closing thread.
 */
final class ResourceGuard {
    private static final int CLOSED = Integer.MIN_VALUE;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(ResourceGuard.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Readers inside, with the sign bit set once closed. */
    @SuppressWarnings("unused") // through STATE
    private volatile int state;

    /** Enters a guarded section; false (and nothing to release) once closed. */
    boolean tryAcquire() {
        if ((int) STATE.getAndAdd(this, 1) < 0) {
            STATE.getAndAdd(this, -1);
            return false;
        }
        return true;
    }

    /** Leaves a section entered by a successful {@link #tryAcquire()}. */
    void release() {
        STATE.getAndAdd(this, -1);
    }

    boolean isClosed() {
        return state < 0;
    }

    /**
     * Refuses new readers and waits until none is inside. True for the call that closed it, which then frees
     * the memory; false for later calls (from any thread), which return at once.
     */
    boolean close() {
        int current;
        do {
            current = state;
            if (current < 0) {
                return false;
            }
        } while (!STATE.compareAndSet(this, current, current | CLOSED));
        while (state != CLOSED) { // a refused tryAcquire also passes through briefly
            Thread.yield();
        }
        return true;
    }
}
