package io.pinshard.reader.loader;

import io.pinshard.memory.BatchMemoryAllocator;
import io.pinshard.memory.HostMemoryAllocator;
import io.pinshard.memory.NativeRegion;
import java.util.concurrent.atomic.AtomicLong;

/** Wraps the host allocator and counts regions still open, to find native memory leaks. */
final class CountingAllocator implements BatchMemoryAllocator {
    final AtomicLong live = new AtomicLong();
    final AtomicLong allocated = new AtomicLong();

    @Override
    public NativeRegion allocate(long length, int alignment) {
        NativeRegion region = HostMemoryAllocator.INSTANCE.allocate(length, alignment);
        live.incrementAndGet();
        allocated.incrementAndGet();
        return new NativeRegion() {
            private boolean closed;

            @Override public long address() { return region.address(); }
            @Override public long length() { return region.length(); }
            @Override public boolean pageLocked() { return false; }

            @Override
            public void close() {
                if (!closed) {
                    closed = true;
                    live.decrementAndGet();
                    region.close();
                }
            }
        };
    }

    @Override
    public String name() {
        return "counting-host";
    }
}
