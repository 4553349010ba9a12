package io.pinshard.memory;

import java.nio.ByteBuffer;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;

/**
 * Ordinary off-heap memory from direct byte buffers: works everywhere, not page-locked, zero-filled (as
 * {@link ByteBuffer#allocateDirect} is). Counts its live regions ({@link #liveRegions()}).
 */
public final class HostMemoryAllocator implements BatchMemoryAllocator {
    public static final HostMemoryAllocator INSTANCE = new HostMemoryAllocator();

    private final RegionCounter live = new RegionCounter();

    @Override
    public NativeRegion allocate(long length, int alignment) {
        BatchMemoryAllocator.checkAllocation("host", length, alignment);
        if (length > Integer.MAX_VALUE - alignment) {
            throw new IllegalArgumentException("host regions hold 1 to " + (Integer.MAX_VALUE - alignment)
                + " bytes at alignment " + alignment + ": " + length);
        }
        // Keep the original buffer (not an aligned slice): only it carries the cleaner that frees the memory.
        ByteBuffer raw = ByteBuffer.allocateDirect((int) length + alignment);
        long start = BufferUtil.address(raw);
        return new HostRegion(raw, BitUtil.align(start, alignment), length, live);
    }

    @Override
    public String name() {
        return "host";
    }

    @Override
    public long liveRegions() {
        return live.regions();
    }

    @Override
    public long liveBytes() {
        return live.bytes();
    }

    private static final class HostRegion extends OwnedRegion {
        private final ByteBuffer buffer;

        HostRegion(ByteBuffer buffer, long address, long length, RegionCounter live) {
            super("host", address, length, live);
            this.buffer = buffer;
        }

        @Override
        public boolean pageLocked() {
            return false;
        }

        @Override
        protected void release() {
            BufferUtil.free(buffer);
        }
    }
}
