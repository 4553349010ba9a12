package io.pinshard.memory;

import java.nio.ByteBuffer;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;

/**
 * Ordinary off-heap memory from direct byte buffers: works everywhere, not page-locked, zero-filled (as
 * {@link ByteBuffer#allocateDirect} is). Counts its live regions ({@link #liveRegions()}).
 */
public final class HostMemoryAllocator extends RegionCountingAllocator {
    public static final HostMemoryAllocator INSTANCE = new HostMemoryAllocator();

    /** A fresh allocator with its own live count; {@link #INSTANCE} serves everyone else. */
    public HostMemoryAllocator() {
        super("host");
    }

    @Override
    public NativeRegion allocate(long length, int alignment) {
        checkAllocation(length, alignment);
        if (length > Integer.MAX_VALUE - alignment) {
            throw new IllegalArgumentException("host regions hold 1 to " + (Integer.MAX_VALUE - alignment)
                + " bytes at alignment " + alignment + ": " + length);
        }
        // Keep the original buffer (not an aligned slice): only it carries the cleaner that frees the memory.
        ByteBuffer raw = ByteBuffer.allocateDirect((int) length + alignment);
        long start = BufferUtil.address(raw);
        return new HostRegion(this, raw, BitUtil.align(start, alignment), length);
    }

    private static final class HostRegion extends OwnedRegion {
        private final ByteBuffer buffer;

        HostRegion(HostMemoryAllocator owner, ByteBuffer buffer, long address, long length) {
            super(owner, address, length, false);
            this.buffer = buffer;
        }

        @Override
        protected void release() {
            BufferUtil.free(buffer);
        }
    }
}
