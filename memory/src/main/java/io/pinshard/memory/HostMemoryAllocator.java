package io.pinshard.memory;

import java.nio.ByteBuffer;
import org.agrona.BufferUtil;

/** Ordinary off-heap memory from direct byte buffers: works everywhere, not page-locked. */
public final class HostMemoryAllocator implements BatchMemoryAllocator {
    public static final HostMemoryAllocator INSTANCE = new HostMemoryAllocator();

    @Override
    public NativeRegion allocate(long length, int alignment) {
        if (length <= 0 || length > Integer.MAX_VALUE - alignment) {
            throw new IllegalArgumentException("host regions hold 1 to " + (Integer.MAX_VALUE - alignment)
                + " bytes: " + length);
        }
        OwnedRegion.requirePowerOfTwo(alignment);
        // Keep the original buffer (not an aligned slice): only it carries the cleaner that frees the memory.
        ByteBuffer raw = ByteBuffer.allocateDirect((int) length + alignment);
        long start = BufferUtil.address(raw);
        return new HostRegion(raw, OwnedRegion.align(start, alignment), length);
    }

    @Override
    public String name() {
        return "host";
    }

    private static final class HostRegion extends OwnedRegion {
        private final ByteBuffer buffer;

        HostRegion(ByteBuffer buffer, long address, long length) {
            super(address, length);
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
