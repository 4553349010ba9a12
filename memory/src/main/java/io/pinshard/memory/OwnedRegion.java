package io.pinshard.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Base of every {@link NativeRegion} an allocator hands out: the aligned address and length, close-once semantics
 * safe against racing closes, the use-after-close guard and the allocator's live count, so each allocator only says
 * how its memory is released.
 */
public abstract class OwnedRegion implements NativeRegion {
    private static final VarHandle CLOSED;

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(OwnedRegion.class, "closed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String owner;
    private final long address;
    private final long length;
    private final RegionCounter counter;
    private volatile boolean closed;

    /**
     * @param owner   the allocator's {@link BatchMemoryAllocator#name()}, for messages
     * @param counter the allocator's live count, or {@code null} when it does not count
     */
    protected OwnedRegion(String owner, long address, long length, RegionCounter counter) {
        this.owner = owner;
        this.address = address;
        this.length = length;
        this.counter = counter;
        if (counter != null) {
            counter.opened(length);
        }
    }

    @Override
    public final long address() {
        ensureAccessible();
        return address;
    }

    @Override
    public final long length() {
        ensureAccessible();
        return length;
    }

    private void ensureAccessible() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    /** Releases the memory the first time, on whichever thread wins; later and racing calls do nothing. */
    @Override
    public final void close() {
        if (CLOSED.compareAndSet(this, false, true)) {
            try {
                release();
            } finally {
                if (counter != null) {
                    counter.released(length);
                }
            }
        }
    }

    /** Frees the underlying memory; called at most once. */
    protected abstract void release();

    @Override
    public String toString() {
        return owner + " region of " + length + " bytes at 0x" + Long.toHexString(address);
    }
}
