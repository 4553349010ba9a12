package io.pinshard.torch;

import io.pinshard.loader.ring.Batch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A batch closed while views of its slot storages (images, sample ids) were still alive: the loader gets it back
 * when the last of those storages dies, counted down by their deleters on any thread. It closes exactly that
 * hand-out ({@link Batch#closeHandout}), never a later batch of the same slot object.
 */
final class SlotReturn {
    private final TorchLoader owner;
    private final Batch batch;
    private final long handout;
    private final String name;
    private final AtomicInteger storages;
    private volatile boolean done;

    SlotReturn(TorchLoader owner, Batch batch, int storages) {
        this.owner = owner;
        this.batch = batch;
        this.handout = batch.handout();
        this.name = batch.toString();
        this.storages = new AtomicInteger(storages);
    }

    void storageFreed() {
        if (storages.decrementAndGet() == 0) {
            batch.closeHandout(handout);
            done = true;
            owner.slotReturned();
        }
    }

    /** Whether the batch went back to the loader. */
    boolean done() {
        return done;
    }

    @Override
    public String toString() {
        return name;
    }
}
