package io.pinshard.memory;

/**
 * A block of native memory the loader writes batches into. Implementations decide what kind:
 * ordinary off-heap memory on the host, or page-locked memory a GPU can copy from asynchronously.
 * Closing releases it; using it afterwards is a caller bug.
 */
public interface NativeRegion extends AutoCloseable {
    /** Start address, aligned as requested. */
    long address();

    /** Usable bytes from {@link #address()}. */
    long length();

    /** Whether the memory is page-locked (pinned) for device DMA. */
    boolean pageLocked();

    @Override
    void close();
}
