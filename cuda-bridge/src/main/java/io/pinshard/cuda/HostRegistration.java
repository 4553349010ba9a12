package io.pinshard.cuda;

import io.pinshard.memory.BatchMemoryAllocator;
import io.pinshard.memory.NativeRegion;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.bytedeco.cuda.global.cudart;

/**
 * Page-locks memory that already exists with {@code cudaHostRegister}: the loader's ordinary off-heap slots
 * ({@link #registering(BatchMemoryAllocator)}), or read-only file mappings such as raw shards
 * ({@link #register(long, long, boolean)} with {@code readOnly}), so the GPU copies straight from the page cache.
 * The range is widened to whole pages. Closing unregisters.
 */
public final class HostRegistration implements AutoCloseable {
    private static final long PAGE = 4096;

    private final RawPointer start = new RawPointer();
    private final long length;
    private boolean registered;

    private HostRegistration(long address, long length, boolean readOnly) {
        CudaAvailability.require();
        if (address == 0 || length <= 0) {
            throw new IllegalArgumentException("cannot register " + length + " bytes at 0x" + Long.toHexString(address));
        }
        long first = address & -PAGE;
        long end = (address + length + PAGE - 1) & -PAGE;
        this.length = end - first;
        start.at(first, this.length);
        int flags = cudart.cudaHostRegisterPortable | (readOnly ? cudart.cudaHostRegisterReadOnly : 0);
        CudaCheck.runtime(cudart.cudaHostRegister(start, this.length, flags),
            "cudaHostRegister(" + this.length + " bytes" + (readOnly ? ", read-only" : "") + ")");
        registered = true;
    }

    /** Page-locks {@code [address, address + length)}; {@code readOnly} is required for read-only mappings. */
    public static HostRegistration register(long address, long length, boolean readOnly) {
        return new HostRegistration(address, length, readOnly);
    }

    /**
     * Registers each mapping read-only (a dataset's shard mappings, {@code dataset.shard(i).buffer()}), so raw
     * records can be copied to the device straight from the page cache. On failure the ones already registered are
     * unregistered. Close each registration before unmapping.
     */
    public static HostRegistration[] registerReadOnly(DirectBuffer... mappings) {
        HostRegistration[] registrations = new HostRegistration[mappings.length];
        try {
            for (int i = 0; i < registrations.length; i++) {
                registrations[i] = register(mappings[i].addressOffset(), mappings[i].capacity(), true);
            }
            return registrations;
        } catch (RuntimeException e) {
            CloseHelper.closeAll(e::addSuppressed, registrations);
            throw e;
        }
    }

    /** Bytes locked (whole pages). */
    public long length() {
        return length;
    }

    @Override
    public void close() {
        if (registered) {
            registered = false;
            CudaCheck.runtime(cudart.cudaHostUnregister(start), "cudaHostUnregister");
        }
    }

    /** An allocator that takes memory from {@code delegate} and page-locks it in place. */
    public static BatchMemoryAllocator registering(BatchMemoryAllocator delegate) {
        return new BatchMemoryAllocator() {
            @Override
            public NativeRegion allocate(long length, int alignment) {
                // Whole pages of its own: registering a page another region already registered would fail.
                long pages = (length + PAGE - 1) & -PAGE;
                NativeRegion region = delegate.allocate(pages, (int) Math.max(alignment, PAGE));
                HostRegistration registration;
                try {
                    registration = register(region.address(), region.length(), false);
                } catch (RuntimeException e) {
                    region.close();
                    throw e;
                }
                return new NativeRegion() {
                    @Override
                    public long address() {
                        return region.address();
                    }

                    @Override
                    public long length() {
                        return length;
                    }

                    @Override
                    public boolean pageLocked() {
                        return true;
                    }

                    @Override
                    public void close() {
                        try {
                            registration.close();
                        } finally {
                            region.close();
                        }
                    }
                };
            }

            @Override
            public String name() {
                return delegate.name() + "+cuda-registered";
            }
        };
    }
}
