package io.pinshard.memory;

/**
 * Where the loader gets batch memory. This module ships {@link HostMemoryAllocator}; the cuda-bridge module
 * implements this with page-locked memory (cudaHostAlloc / cudaHostRegister), so neither the reader nor the
 * cuda-bridge depends on the other.
 *
 * <p>Contract (checked for every implementation by the allocator contract suite): a region holds exactly the
 * requested length at an address aligned as asked, is page-locked exactly when {@link NativeRegion#pageLocked()}
 * says so, is released once however often and from whichever threads it is closed, and refuses
 * {@link NativeRegion#address()} / {@link NativeRegion#length()} after close. Invalid arguments fail with
 * {@link IllegalArgumentException} and allocate nothing.
 */
public interface BatchMemoryAllocator {
    /**
     * Allocates {@code length} bytes aligned to {@code alignment} (a power of two).
     *
     * @throws IllegalArgumentException when the length is not positive or the alignment not a power of two
     * @throws OutOfMemoryError when the memory cannot be had
     */
    NativeRegion allocate(long length, int alignment);

    /** Short name for logs and benchmark output, e.g. "host" or "cuda-pinned". */
    String name();

    /** Regions from this allocator not yet closed (for leak checks); -1 where the allocator does not count them. */
    default long liveRegions() {
        return -1;
    }

    /** Requested bytes of those regions; -1 where the allocator does not count them. */
    default long liveBytes() {
        return -1;
    }

    /**
     * Whether another process can truncate or overwrite this memory while the loader writes it: a file mapping it
     * shares, such as pinshard serve's ring. The loader then lets no native code write it, only JVM-guarded copies
     * (Agrona/Unsafe), which HotSpot turns from a SIGBUS into an {@link InternalError}; elsewhere OpenCV writes
     * batch slots directly. False by default: process-private memory.
     */
    default boolean sharedWithOtherProcesses() {
        return false;
    }

    /**
     * For {@link #sharedWithOtherProcesses() shared} memory: the error to report because another process truncated
     * or overwrote it, naming what it is; null while it is intact (always, by default). The loader asks when a
     * guarded access faulted, to tell a fault of this memory from one of the shard it was reading: HotSpot reports
     * such a fault a little after the access, so where it surfaces does not say.
     */
    default RuntimeException damaged() {
        return null;
    }
}
