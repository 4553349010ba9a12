package io.pinshard.cuda;

/** Memory on the backend's device (GPU memory for cuda, ordinary off-heap memory for host). */
public interface DeviceBuffer extends AutoCloseable {
    /** Device address (what a trainer wraps). */
    long address();

    long length();

    @Override
    void close();
}
