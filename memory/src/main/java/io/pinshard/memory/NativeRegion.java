package io.pinshard.memory;

/**
 * A block of native memory the loader writes batches into. Implementations decide what kind:
 * ordinary off-heap memory on the host, or page-locked memory a GPU can copy from asynchronously.
 * Closing releases it; afterwards {@link #address()} and {@link #length()} throw {@link IllegalStateException}
 * naming the region (like Arrow's {@code ensureAccessible}), so a stale holder fails instead of reading freed
 * memory. Closing twice, or from several threads at once, releases once.
 */
public interface NativeRegion extends AutoCloseable {
    /**
     * Start address, aligned as requested.
     *
     * @throws IllegalStateException after {@link #close()}
     */
    long address();

    /**
     * Usable bytes from {@link #address()}.
     *
     * @throws IllegalStateException after {@link #close()}
     */
    long length();

    /** Whether the memory is page-locked (pinned) for device DMA. */
    boolean pageLocked();

    @Override
    void close();
}
