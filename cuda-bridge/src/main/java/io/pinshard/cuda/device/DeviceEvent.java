package io.pinshard.cuda.device;

/** A point in a stream's work (a CUDA event, or an already-reached marker on the host backend). */
public interface DeviceEvent extends AutoCloseable {
    /** Whether all work recorded before this event has finished (never blocks). */
    boolean isComplete();

    /** Blocks the calling thread until {@link #isComplete()}. */
    void synchronize();

    /** The native handle ({@code cudaEvent_t}), 0 on the host backend. */
    long handle();

    @Override
    void close();
}
