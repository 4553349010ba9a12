package io.pinshard.torch;

import io.pinshard.loader.ring.SlotMemoryHold;
import java.util.concurrent.ConcurrentHashMap;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.pytorch.PointerConsumer;

/**
 * The one libtorch deleter of the adapter's {@code from_blob} storages over ring slots: libtorch calls it with the
 * blob's address when the storage's last reference goes, on whatever thread dropped it (the trainer's, JavaCPP's
 * deallocator thread, an autograd thread). One instance for the JVM, kept reachable by this class: JavaCPP has a
 * few native callback slots per callback class, and a collected callback object would leave libtorch calling
 * into nothing. It finds the storage's {@link SlotLease} by address (one live storage per slot address: a slot is
 * re-wrapped only after its old storage died, and {@link TorchLoader} refuses a second adapter over one loader).
 */
final class SlotDeleter extends PointerConsumer {
    static final SlotDeleter INSTANCE = Owned.keep(new SlotDeleter());

    private final ConcurrentHashMap<Long, SlotLease> leases = new ConcurrentHashMap<>();

    private SlotDeleter() {
    }

    /** The lease of a storage about to be made over {@code address}, holding {@code memory} until it ends. */
    SlotLease lease(long address, SlotMemoryHold memory) {
        SlotLease lease = new SlotLease(memory);
        if (leases.putIfAbsent(address, lease) != null) {
            memory.close();
            throw new IllegalStateException("slot memory at 0x" + Long.toHexString(address) + " is still wrapped by "
                + "a live libtorch storage: a view of an earlier batch of this slot outlived it, and that batch's raw "
                + "Batch was closed directly instead of through TorchBatch.close()");
        }
        return lease;
    }

    /** Undoes {@link #lease} when the storage could not be made. */
    void forget(long address, SlotLease lease) {
        if (leases.remove(address, lease)) {
            lease.end();
        }
    }

    /** Live storages over slot memory (for tests). */
    int live() {
        return leases.size();
    }

    @Override
    public void call(Pointer data) {
        try {
            SlotLease lease = leases.remove(data.address()); // before the slot can be handed out and re-wrapped
            if (lease != null) {
                lease.end();
            }
        } catch (Throwable t) { // a throw would unwind through libtorch's storage destructor: report, carry on
            t.printStackTrace();
        }
    }
}
