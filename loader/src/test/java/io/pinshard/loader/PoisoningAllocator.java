package io.pinshard.loader;

import io.pinshard.memory.BatchMemoryAllocator;
import io.pinshard.memory.HostMemoryAllocator;
import io.pinshard.memory.NativeRegion;
import java.util.ArrayList;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Host memory that, when a region is closed, is filled with {@link #POISON} and kept (freed only by
 * {@link #freeAll()}), so a read after close returns a recognisable value instead of crashing the JVM
 * or, worse, looking plausible. In the test-jar for other modules' tests (the torch adapter's kept tensors).
 */
public final class PoisoningAllocator implements BatchMemoryAllocator {
    static final byte POISON = 0x7F;
    static final int POISON_INT = 0x7F7F7F7F;

    private final List<NativeRegion> kept = new ArrayList<>();
    private long live;

    @Override
    public synchronized NativeRegion allocate(long length, int alignment) {
        NativeRegion region = HostMemoryAllocator.INSTANCE.allocate(length, alignment);
        kept.add(region);
        live++;
        return new NativeRegion() {
            private boolean closed;

            @Override public long address() { return region.address(); }
            @Override public long length() { return region.length(); }
            @Override public boolean pageLocked() { return false; }

            @Override
            public void close() {
                if (!closed) {
                    closed = true;
                    closedOne();
                    new UnsafeBuffer(region.address(), (int) region.length()).setMemory(0, (int) region.length(), POISON);
                }
            }
        };
    }

    private synchronized void closedOne() {
        live--;
    }

    /** Regions handed out and not closed yet (closed ones stay allocated, poisoned, until {@link #freeAll()}). */
    @Override
    public synchronized long liveRegions() {
        return live;
    }

    /** Frees every region for real (call once nothing can read them any more). */
    public synchronized void freeAll() {
        kept.forEach(NativeRegion::close);
        kept.clear();
    }

    @Override
    public String name() {
        return "poisoning-host";
    }
}
