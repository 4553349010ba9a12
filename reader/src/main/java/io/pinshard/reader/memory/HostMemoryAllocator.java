package io.pinshard.reader.memory;

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
        if (Long.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two: " + alignment);
        }
        // Keep the original buffer (not an aligned slice): only it carries the cleaner that frees the memory.
        ByteBuffer raw = ByteBuffer.allocateDirect((int) length + alignment);
        long start = BufferUtil.address(raw);
        return new HostRegion(raw, (start + alignment - 1) & -alignment, length);
    }

    @Override
    public String name() {
        return "host";
    }

    private static final class HostRegion implements NativeRegion {
        private ByteBuffer buffer;
        private final long address;
        private final long length;

        HostRegion(ByteBuffer buffer, long address, long length) {
            this.buffer = buffer;
            this.address = address;
            this.length = length;
        }

        @Override
        public long address() {
            return address;
        }

        @Override
        public long length() {
            return length;
        }

        @Override
        public boolean pageLocked() {
            return false;
        }

        @Override
        public void close() {
            ByteBuffer held = buffer;
            buffer = null;
            if (held != null) {
                BufferUtil.free(held);
            }
        }
    }
}
