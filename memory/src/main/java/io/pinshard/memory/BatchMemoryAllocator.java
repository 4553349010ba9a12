package io.pinshard.memory;

/**
 * Where the loader gets batch memory. The reader ships {@link HostMemoryAllocator}; the cuda-bridge
 * module implements this with page-locked memory (cudaHostAlloc / cudaHostRegister), so the reader
 * never depends on CUDA.
 */
public interface BatchMemoryAllocator {
    /**
     * Allocates {@code length} bytes aligned to {@code alignment} (a power of two).
     *
     * @throws OutOfMemoryError when the memory cannot be had
     */
    NativeRegion allocate(long length, int alignment);

    /** Short name for logs and benchmark output, e.g. "host" or "cuda-pinned". */
    String name();
}
