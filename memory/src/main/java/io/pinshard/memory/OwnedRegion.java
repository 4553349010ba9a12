package io.pinshard.memory;

/**
 * Base of every {@link NativeRegion} an allocator hands out: the aligned address and length, the
 * power-of-two check allocators share, and close-once semantics, so each allocator only says how its
 * memory is released.
 */
public abstract class OwnedRegion implements NativeRegion {
    private final long address;
    private final long length;
    private boolean closed;

    protected OwnedRegion(long address, long length) {
        this.address = address;
        this.length = length;
    }

    /** Rounds {@code start} up to {@code alignment}, after checking that the alignment is a power of two. */
    public static long align(long start, int alignment) {
        requirePowerOfTwo(alignment);
        return (start + alignment - 1) & -(long) alignment;
    }

    public static void requirePowerOfTwo(int alignment) {
        if (Integer.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two: " + alignment);
        }
    }

    @Override
    public final long address() {
        return address;
    }

    @Override
    public final long length() {
        return length;
    }

    /** Releases the memory the first time; later calls do nothing. */
    @Override
    public final void close() {
        if (!closed) {
            closed = true;
            release();
        }
    }

    /** Frees the underlying memory; called at most once. */
    protected abstract void release();
}
