package io.pinshard.torch;

import io.pinshard.loader.Loader;
import io.pinshard.loader.options.LoaderState;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bytedeco.pytorch.global.torch;

/**
 * A {@link Loader}'s batches as libtorch tensors, without copying a pixel:
 *
 * <pre>{@code
 * try (Loader loader = Loader.open(dataset, options); TorchLoader batches = TorchLoader.of(loader)) {
 *     for (int e = 0; e < epochs; e++) {
 *         try (TorchEpoch epoch = batches.epoch(e)) {
 *             for (TorchBatch batch : epoch) {
 *                 try (batch) {
 *                     Tensor loss = cross_entropy(model.forward(batch.normalized()), batch.labels());
 *                     ...
 *                 }
 *             }
 *         }
 *     }
 * }
 * }</pre>
 *
 * It owns nothing of the loader (close the loader yourself, after this: try-with-resources in the order above does
 * that), only the libtorch tensors it keeps per ring slot, made on each slot's first batch. {@link #close()} frees
 * them and revokes the handles of batches still held. Its tensors over slot memory hold that memory (libtorch
 * deleters, {@code Batch.holdMemory()}): a loader closed first frees it only when they are freed, at
 * {@link #close()} or with the last view a trainer kept. One adapter per loader at a time. See {@link TorchBatch}
 * for the lifetime rules.
 */
public final class TorchLoader implements AutoCloseable {
    private final Loader loader;
    private final TorchOptions options;
    private final TorchBatch[] slots;
    private final long[] imageShape;
    private final long[] rowShape;
    private final TensorOptions uint8 = Owned.keep(new TensorOptions(torch.ScalarType.Byte));
    private final TensorOptions int64 = Owned.keep(new TensorOptions(torch.ScalarType.Long));
    private final TensorOptions float32 = Owned.keep(new TensorOptions(torch.ScalarType.Float));
    private final TensorOptions int32 = Owned.keep(new TensorOptions(torch.ScalarType.Int));
    /** Per selected field: the tensor options of its elements, or null for a byte-typed field (text, json, bytes). */
    private final TensorOptions[] fieldOptions;
    /** Per selected field: its {@code [batch, elements]} shape, elements = the slot's room over the element size. */
    private final long[][] fieldShapes;
    private final Scalar maxPixel = Owned.keep(new Scalar(255.0f));
    private final Tensor mean;
    private final Tensor std;
    /** Loaders wrapped by an open adapter: two would make two live storages over one slot address. */
    private static final Set<Loader> WRAPPED = ConcurrentHashMap.newKeySet();
    /** How long {@link #awaitSlot} lets the garbage collector free views left to it before refusing. */
    private static final long VIEW_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final AtomicInteger slotsHeldByViews = new AtomicInteger();
    private long keptPastClose;
    private boolean closed;

    private TorchLoader(Loader loader, TorchOptions options) {
        this.loader = loader;
        this.options = options;
        int batchSize = loader.options().sampling().batchSize();
        int crop = loader.options().augment().crop();
        this.imageShape = new long[] {batchSize, crop, crop, 3};
        this.rowShape = new long[] {batchSize};
        this.mean = channelTensor(options.mean(0), options.mean(1), options.mean(2));
        this.std = channelTensor(options.std(0), options.std(1), options.std(2));
        io.pinshard.loader.options.FieldSelection selection = loader.options().augment().fields();
        this.fieldOptions = new TensorOptions[selection.count()];
        this.fieldShapes = new long[selection.count()][];
        for (int f = 0; f < selection.count(); f++) {
            io.pinshard.format.FieldType type = loader.dataset().fields()
                .get(loader.dataset().fieldIndex(selection.names().get(f))).type();
            fieldOptions[f] = switch (type) {
                case INT32 -> int32;
                case INT64 -> int64;
                case FLOAT32 -> float32;
                default -> null;
            };
            fieldShapes[f] = new long[] {batchSize, selection.bytesPerSample() / Math.max(1, type.elementBytes())};
        }
        this.slots = new TorchBatch[loader.slots()];
        for (int s = 0; s < slots.length; s++) {
            slots[s] = new TorchBatch(this);
        }
    }

    /** Wraps {@code loader} with ImageNet normalisation. */
    public static TorchLoader of(Loader loader) {
        return of(loader, TorchOptions.defaults());
    }

    /**
     * Wraps {@code loader}.
     *
     * @throws IllegalStateException when libtorch's natives cannot be loaded here (the message says why)
     */
    public static TorchLoader of(Loader loader, TorchOptions options) {
        Libtorch.require();
        if (!WRAPPED.add(loader)) {
            throw new IllegalStateException(loader.name() + " is already wrapped by an open TorchLoader: close it first");
        }
        try {
            return new TorchLoader(loader, options);
        } catch (RuntimeException | Error e) {
            WRAPPED.remove(loader);
            throw e;
        }
    }

    private Tensor channelTensor(float r, float g, float b) {
        Tensor t = Owned.keep(torch.empty(new long[] {3}, float32, null));
        org.bytedeco.javacpp.FloatPointer data = t.data_ptr_float();
        data.put(0, r).put(1, g).put(2, b);
        return t;
    }

    public Loader loader() {
        return loader;
    }

    public TorchOptions options() {
        return options;
    }

    /** Starts epoch {@code epoch} of the loader (see {@link Loader#epoch(int)}). */
    public TorchEpoch epoch(int epoch) {
        checkOpen();
        awaitSlots();
        return new TorchEpoch(this, loader.epoch(epoch));
    }

    /** Continues from a checkpointed {@link TorchEpoch#state()} (see {@link Loader#resume(LoaderState)}). */
    public TorchEpoch resume(LoaderState state) {
        checkOpen();
        awaitSlots();
        return new TorchEpoch(this, loader.resume(state));
    }

    /**
     * Tensors left to views that outlived their batch's close, so far (0 in a clean loop): each kept its memory and
     * values, and costs its slot a fresh tensor.
     */
    public long keptPastClose() {
        return keptPastClose;
    }

    /** Ring slots that views of a closed batch's images or sample ids keep from the loader now. */
    public int slotsHeldByViews() {
        return slotsHeldByViews.get();
    }

    /**
     * Tensors (libtorch objects over native memory) the adapter made so far: one set per ring slot on its first full
     * and first partial batch, plus one per poisoning; constant in steady state, where wrapping a batch makes none.
     */
    public long tensorsMade() {
        long made = 0;
        for (TorchBatch slot : slots) {
            made += slot.tensorsMade();
        }
        return made;
    }

    TorchBatch slot(int slot) {
        checkOpen();
        return slots[slot];
    }

    long[] imageShape() {
        return imageShape;
    }

    long[] rowShape() {
        return rowShape;
    }

    TensorOptions uint8() {
        return uint8;
    }

    TensorOptions int64() {
        return int64;
    }

    TensorOptions float32() {
        return float32;
    }

    /** Options of selected field {@code f}'s elements; null for a byte-typed field. */
    TensorOptions fieldOptions(int f) {
        return fieldOptions[f];
    }

    long[] fieldShape(int f) {
        return fieldShapes[f];
    }

    /** {@code (x / 255 - mean) / std} in place over NHWC float rows (channel last, so mean/std broadcast). */
    void normalize(Tensor rows) {
        rows.div_(maxPixel);
        rows.sub_(mean);
        rows.div_(std);
    }

    void countKept(int tensors) {
        keptPastClose += tensors;
    }

    void slotHeldByViews() {
        slotsHeldByViews.incrementAndGet();
    }

    /** A deleter (any thread) gave a slot back. */
    void slotReturned() {
        slotsHeldByViews.decrementAndGet();
    }

    /** Before a new epoch: every slot back ({@link #awaitSlot}), or the loader refuses the epoch. */
    private void awaitSlots() {
        for (int s = 0; s < slots.length; s++) {
            awaitSlot(s);
        }
    }

    /**
     * Waits until views of an earlier batch no longer keep {@code slot} from the loader. A view the trainer left to
     * the garbage collector (no close, no scope) is freed by JavaCPP only after a collection, so this asks for one,
     * and waits up to 2 s; then it refuses rather than block the consumer forever.
     *
     * @throws IllegalStateException naming the batch whose views still hold the slot
     */
    void awaitSlot(int slot) {
        TorchBatch held = slots[slot];
        if (!held.heldByViews()) {
            return;
        }
        long start = System.nanoTime();
        while (held.heldByViews() && System.nanoTime() - start < VIEW_WAIT_NANOS) {
            System.gc();
            try {
                Thread.sleep(20); // JavaCPP's deallocator thread frees the collected views
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (held.heldByViews()) {
            throw new IllegalStateException("ring slot " + slot + " of " + loader.name() + " is still held by a view "
                + "of the images or sample ids of " + held.heldBatch() + ", kept past that batch's close: free it "
                + "(close() or its PointerScope) before asking for the slot's next batch");
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("this TorchLoader over " + loader.name() + " is closed");
        }
    }

    /**
     * Releases batches still held (revoking their tensors) and frees every tensor this adapter made. Call it before
     * closing the loader. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (TorchBatch slot : slots) {
            slot.free();
        }
        WRAPPED.remove(loader);
        mean.close();
        std.close();
        maxPixel.close();
        uint8.close();
        int64.close();
        float32.close();
        int32.close();
    }
}
