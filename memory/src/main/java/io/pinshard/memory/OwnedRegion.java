package io.pinshard.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Base of every {@link NativeRegion} a {@link RegionCountingAllocator} hands out: the aligned address and length,
 * close-once semantics safe against racing closes, the use-after-close guard and the allocator's live count, so each
 * allocator only says how its memory is released.
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

    private final RegionCountingAllocator owner;
    private final long address;
    private final long length;
    private final boolean pageLocked;
    private volatile boolean closed;

    /** Counts itself into {@code owner}'s live regions; {@link #close()} counts it out. */
    protected OwnedRegion(RegionCountingAllocator owner, long address, long length, boolean pageLocked) {
        this.owner = owner;
        this.address = address;
        this.length = length;
        this.pageLocked = pageLocked;
        owner.live.opened(length);
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

    @Override
    public final boolean pageLocked() {
        return pageLocked;
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
                owner.live.released(length);
            }
        }
    }

    /** Frees the underlying memory; called at most once. */
    protected abstract void release();

    @Override
    public String toString() {
        return owner.name() + " region of " + length + " bytes at 0x" + Long.toHexString(address);
    }
}
