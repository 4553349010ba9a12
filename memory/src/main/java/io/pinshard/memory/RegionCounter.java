package io.pinshard.memory;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The regions an allocator has handed out and not yet released, and their bytes (as requested): what leak checks
 * compare before and after. {@link OwnedRegion} counts itself in at construction and out on its one release.
 * Thread-safe; touched only on allocate and close, never per batch.
 */
final class RegionCounter {
    private final AtomicLong regions = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong opened = new AtomicLong();

    void opened(long length) {
        opened.incrementAndGet();
        regions.incrementAndGet();
        bytes.addAndGet(length);
    }

    void released(long length) {
        regions.decrementAndGet();
        bytes.addAndGet(-length);
    }

    /** Regions not yet closed. */
    long regions() {
        return regions.get();
    }

    /** Regions handed out since the allocator was made, closed or not. */
    long opened() {
        return opened.get();
    }

    /** Bytes of those regions, as requested (alignment padding not included). */
    long bytes() {
        return bytes.get();
    }
}
