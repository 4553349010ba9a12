package io.pinshard.reader.loader;

import io.pinshard.memory.BatchMemoryAllocator;
import io.pinshard.memory.HostMemoryAllocator;
import io.pinshard.memory.NativeRegion;
import java.util.ArrayList;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Host memory that, when a region is closed, is filled with {@link #POISON} and kept (freed only by
 * {@link #freeAll()}), so a read after close returns a recognisable value instead of crashing the JVM
 * or, worse, looking plausible.
 */
final class PoisoningAllocator implements BatchMemoryAllocator {
    static final byte POISON = 0x7F;
    static final int POISON_INT = 0x7F7F7F7F;

    private final List<NativeRegion> kept = new ArrayList<>();

    @Override
    public synchronized NativeRegion allocate(long length, int alignment) {
        NativeRegion region = HostMemoryAllocator.INSTANCE.allocate(length, alignment);
        kept.add(region);
        return new NativeRegion() {
            private boolean closed;

            @Override public long address() { return region.address(); }
            @Override public long length() { return region.length(); }
            @Override public boolean pageLocked() { return false; }

            @Override
            public void close() {
                if (!closed) {
                    closed = true;
                    new UnsafeBuffer(region.address(), (int) region.length()).setMemory(0, (int) region.length(), POISON);
                }
            }
        };
    }

    /** Frees every region for real (call once nothing can read them any more). */
    synchronized void freeAll() {
        kept.forEach(NativeRegion::close);
        kept.clear();
    }

    @Override
    public String name() {
        return "poisoning-host";
    }
}
