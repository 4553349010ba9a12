package io.pinshard.cuda.device;

/**
 * Memory on the backend's device (GPU memory for cuda, ordinary off-heap memory for host). Closing frees it, once
 * however often it is called; afterwards {@link #address()} and {@link #length()} throw
 * {@link IllegalStateException} naming the buffer.
 */
public interface DeviceBuffer extends AutoCloseable {
    /** Device address (what a trainer wraps). */
    long address();

    long length();

    @Override
    void close();
}
