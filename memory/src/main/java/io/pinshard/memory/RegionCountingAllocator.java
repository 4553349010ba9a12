package io.pinshard.memory;

import org.agrona.BitUtil;

/**
 * Base of the allocators that count what they hand out: the name, the live count and the argument checks, so each
 * allocator only says how it gets memory. Its regions extend {@link OwnedRegion}, which counts itself in and out.
 */
public abstract class RegionCountingAllocator implements BatchMemoryAllocator {
    private final String name;
    final RegionCounter live = new RegionCounter();

    protected RegionCountingAllocator(String name) {
        this.name = name;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final long liveRegions() {
        return live.regions();
    }

    /** Regions handed out so far, closed or not. */
    public final long allocatedRegions() {
        return live.opened();
    }

    @Override
    public final long liveBytes() {
        return live.bytes();
    }

    /** The argument checks every allocator makes before touching memory. */
    protected final void checkAllocation(long length, int alignment) {
        if (length <= 0) {
            throw new IllegalArgumentException(name + " regions hold at least 1 byte: " + length);
        }
        if (!BitUtil.isPowerOfTwo(alignment)) {
            throw new IllegalArgumentException(name + " alignment must be a power of two: " + alignment);
        }
    }
}
