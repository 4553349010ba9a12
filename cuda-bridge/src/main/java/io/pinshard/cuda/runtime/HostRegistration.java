package io.pinshard.cuda.runtime;

import io.pinshard.memory.AddressPointer;
import io.pinshard.memory.BatchMemoryAllocator;
import io.pinshard.memory.NativeRegion;
import io.pinshard.memory.OwnedRegion;
import io.pinshard.memory.RegionCountingAllocator;
import java.util.concurrent.atomic.AtomicBoolean;
import org.agrona.BitUtil;
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

    private final AddressPointer start = new AddressPointer();
    private final long length;
    private final AtomicBoolean registered = new AtomicBoolean();

    private HostRegistration(long address, long length, boolean readOnly) {
        CudaAvailability.require();
        if (address == 0 || length <= 0) {
            throw new IllegalArgumentException("cannot register " + length + " bytes at 0x" + Long.toHexString(address));
        }
        long first = address & -PAGE;
        long end = BitUtil.align(address + length, PAGE);
        this.length = end - first;
        start.at(first, this.length);
        int flags = cudart.cudaHostRegisterPortable | (readOnly ? cudart.cudaHostRegisterReadOnly : 0);
        CudaCheck.runtime(cudart.cudaHostRegister(start, this.length, flags),
            "cudaHostRegister(" + this.length + " bytes" + (readOnly ? ", read-only" : "") + ")");
        registered.set(true);
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

    /** Unregisters once, whichever thread closes first; later and racing calls do nothing. */
    @Override
    public void close() {
        if (registered.compareAndSet(true, false)) {
            CudaCheck.runtime(cudart.cudaHostUnregister(start), "cudaHostUnregister");
        }
    }

    /**
     * An allocator that takes memory from {@code delegate} and page-locks it in place. Each region gets whole pages of
     * its own; closing it unregisters, then gives the memory back to {@code delegate}. Counts its live regions.
     */
    public static BatchMemoryAllocator registering(BatchMemoryAllocator delegate) {
        return new Registering(delegate);
    }

    private static final class Registering extends RegionCountingAllocator {
        private final BatchMemoryAllocator delegate;

        Registering(BatchMemoryAllocator delegate) {
            super(delegate.name() + "+cuda-registered");
            this.delegate = delegate;
        }

        @Override
        public NativeRegion allocate(long length, int alignment) {
            checkAllocation(length, alignment);
            // Whole pages of its own: registering a page another region already registered would fail.
            NativeRegion region = delegate.allocate(BitUtil.align(length, PAGE), (int) Math.max(alignment, PAGE));
            HostRegistration registration;
            try {
                registration = register(region.address(), region.length(), false);
            } catch (RuntimeException e) {
                CloseHelper.closeAll(e::addSuppressed, region);
                throw e;
            }
            return new RegisteredRegion(this, region, registration, length);
        }
    }

    private static final class RegisteredRegion extends OwnedRegion {
        private final NativeRegion region;
        private final HostRegistration registration;

        RegisteredRegion(Registering owner, NativeRegion region, HostRegistration registration, long length) {
            super(owner, region.address(), length, true);
            this.region = region;
            this.registration = registration;
        }

        @Override
        protected void release() {
            // Unregister before the memory goes back; both are attempted even when the first fails.
            CloseHelper.closeAll(registration, region);
        }
    }
}
