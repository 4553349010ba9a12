package io.pinshard.torch;

import io.pinshard.loader.Epoch;
import io.pinshard.loader.options.LoaderState;
import java.util.Iterator;

/**
 * One pass over this rank's batches of an epoch as {@link TorchBatch}es: the loader's {@link Epoch}, whose rules
 * (one consuming thread, blocking {@code next()}, close to stop early) it keeps. Allocation-free per batch.
 */
public final class TorchEpoch implements Iterator<TorchBatch>, Iterable<TorchBatch>, AutoCloseable {
    private final TorchLoader owner;
    private final Epoch epoch;

    TorchEpoch(TorchLoader owner, Epoch epoch) {
        this.owner = owner;
        this.epoch = epoch;
    }

    public int epoch() {
        return epoch.epoch();
    }

    /** Batches of this epoch on this rank. */
    public long batches() {
        return epoch.batches();
    }

    /** Batches handed out so far, counting those consumed before a resume. */
    public long batchesConsumed() {
        return epoch.batchesConsumed();
    }

    /** The state to checkpoint: {@link TorchLoader#resume} from it continues with the next batch. */
    public LoaderState state() {
        return epoch.state();
    }

    /** The loader's epoch underneath. */
    public Epoch loaderEpoch() {
        return epoch;
    }

    @Override
    public boolean hasNext() {
        return epoch.hasNext();
    }

    /**
     * The next batch, blocking until the workers filled it (see {@link Epoch#next()}).
     *
     * @throws IllegalStateException also when a view of an earlier batch of the same slot, kept past that batch's
     *                               close, still holds the slot (after 2 s of asking the GC to free it)
     */
    @Override
    public TorchBatch next() {
        if (epoch.hasNext()) {
            owner.awaitSlot(epoch.nextSlot()); // refuse rather than wait forever for a slot a kept view holds
        }
        var batch = epoch.next();
        try {
            return owner.slot(batch.slot()).open(batch);
        } catch (RuntimeException | Error e) {
            batch.close();
            throw e;
        }
    }

    @Override
    public Iterator<TorchBatch> iterator() {
        return this;
    }

    /** Stops the epoch's workers (see {@link Epoch#close()}); held batches stay valid until closed. */
    @Override
    public void close() {
        epoch.close();
    }
}
