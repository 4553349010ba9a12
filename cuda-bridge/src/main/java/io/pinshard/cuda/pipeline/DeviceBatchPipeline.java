package io.pinshard.cuda.pipeline;

import io.pinshard.cuda.augment.AugmentSpec;
import io.pinshard.cuda.augment.JitterParams;
import io.pinshard.cuda.device.DeviceBackend;
import io.pinshard.cuda.device.DeviceBuffer;
import io.pinshard.cuda.device.DeviceEvent;
import io.pinshard.cuda.device.DeviceType;
import io.pinshard.memory.DType;
import io.pinshard.memory.HostBatch;
import io.pinshard.memory.NativeRegion;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Moves host batches to the device through a ring of device slots: for each {@link #submit(HostBatch)} it enqueues
 * the image, label and jitter-table copies on the copy stream, records the slot's copy event, makes the compute
 * stream wait for it, enqueues the augmentation (if any) and records the ready event, then hands the trainer a
 * {@link DeviceBatch}. Nothing blocks on the device in the common case.
 *
 * <p>Ring protocol: a host batch is released to the loader only after its copy event has been reached, in
 * submission order; a slot is reused only after the trainer released its previous batch, and the reuse waits
 * (device side) for the previous augmentation and, with {@link DeviceBatch#releaseAfter(long)}, the trainer's work.
 * Single consumer thread. Zero heap allocation per batch after construction.
 */
public final class DeviceBatchPipeline implements AutoCloseable {
    private static final int LABEL_BYTES = Integer.BYTES;

    private final DeviceBackend backend;
    private final PipelineOptions options;
    private final Slot[] slots;
    private final UnsafeBuffer paramsView = new UnsafeBuffer(0, 0);
    private long submitted;
    private long hostReleased;
    private boolean closed;

    private long batches;
    private long images;
    private long bytesCopied;
    private long slotWaitNanos;
    private long readyWaitNanos;
    private long notReadyAtHandOff;

    /** Allocates every slot's device and host buffers and events up front. The backend stays the caller's. */
    public DeviceBatchPipeline(DeviceBackend backend, PipelineOptions options) {
        if (backend == null || options == null) {
            throw new IllegalArgumentException("backend and options are required");
        }
        this.backend = backend;
        this.options = options;
        this.slots = new Slot[options.ringSize()];
        try {
            for (int i = 0; i < slots.length; i++) {
                slots[i] = new Slot(i);
            }
        } catch (RuntimeException | Error e) {
            CloseHelper.closeAll(e::addSuppressed, slots); // the slots made so far (the rest are null)
            throw e;
        }
    }

    public DeviceBackend backend() {
        return backend;
    }

    public PipelineOptions options() {
        return options;
    }

    /** Whether the next {@link #submit} has a slot the trainer does not hold. */
    public boolean canSubmit() {
        ensureOpen();
        return !slots[(int) (submitted % slots.length)].held;
    }

    /**
     * Enqueues the transfer (and augmentation) of {@code hostBatch} and returns its device batch. The pipeline
     * releases the host batch once the copy has completed (checked here, in {@link #pollCopies()} and at
     * {@link #close()}). On an exception the host batch stays the caller's.
     *
     * @throws IllegalArgumentException when the batch does not fit the options
     * @throws IllegalStateException    when the trainer still holds the slot this batch needs, or after close
     */
    public DeviceBatch submit(HostBatch hostBatch) {
        ensureOpen();
        validate(hostBatch);
        pollCopies();
        Slot slot = slots[(int) (submitted % slots.length)];
        if (slot.held) {
            throw new IllegalStateException("all " + slots.length + " device slots are held by the trainer: close() "
                + "device batches before asking for more (or use a larger ring)");
        }
        if (slot.pendingHost != null) {
            // The slot's previous copy is still in flight: its jitter table and host batch are not free yet.
            long start = System.nanoTime();
            slot.copied.synchronize();
            slotWaitNanos += System.nanoTime() - start;
            pollCopies();
        }
        if (slot.used) {
            backend.copyStreamWaitFor(slot.ready);
            if (slot.consumedRecorded) {
                backend.copyStreamWaitFor(slot.consumed);
                backend.computeStreamWaitFor(slot.consumed);
                slot.consumedRecorded = false;
            }
        }
        int n = hostBatch.size();
        int h = options.height();
        int w = options.width();
        long imageBytes = (long) n * h * w * 3;
        backend.copyToDevice(slot.deviceImages.address(), hostBatch.imagesAddress(), imageBytes);
        backend.copyToDevice(slot.deviceLabels.address(), hostBatch.labelsAddress(), (long) n * LABEL_BYTES);
        long copied = imageBytes + (long) n * LABEL_BYTES;
        AugmentSpec spec = options.augment();
        if (spec != null) {
            paramsView.wrap(slot.hostParams.address(), n * JitterParams.BYTES_PER_SAMPLE);
            int epoch = hostBatch.epoch();
            for (int i = 0; i < n; i++) {
                JitterParams.write(spec, epoch, hostBatch.sampleId(i), paramsView, i);
            }
            backend.copyToDevice(slot.deviceParams.address(), slot.hostParams.address(),
                (long) n * JitterParams.BYTES_PER_SAMPLE);
            copied += (long) n * JitterParams.BYTES_PER_SAMPLE;
        }
        backend.recordOnCopyStream(slot.copied);
        slot.pendingHost = hostBatch;
        slot.used = true;
        submitted++;

        backend.computeStreamWaitFor(slot.copied);
        DeviceType type = backend.deviceType();
        int id = backend.deviceId();
        if (spec != null) {
            backend.augment(slot.deviceImages.address(), slot.deviceParams.address(), slot.deviceOutput.address(), n, h,
                w, spec);
            slot.batch.images().set(slot.deviceOutput.address(), type, id, spec.output(), "NCHW", n, 3, h, w);
        } else {
            slot.batch.images().set(slot.deviceImages.address(), type, id, DType.UINT8, "NHWC", n, h, w, 3);
        }
        backend.recordOnComputeStream(slot.ready);
        slot.batch.labels().set(slot.deviceLabels.address(), type, id, DType.INT32, "N", n, 0, 0, 0);
        slot.held = true;
        slot.batch.handOut(submitted, n, slot.ready);
        batches++;
        images += n;
        bytesCopied += copied;
        if (!slot.ready.isComplete()) {
            notReadyAtHandOff++;
        }
        pollCopies();
        return slot.batch;
    }

    /** Releases, in submission order, the host batches whose copies have completed. Never blocks. */
    public void pollCopies() {
        while (hostReleased < submitted) {
            Slot slot = slots[(int) (hostReleased % slots.length)];
            if (!slot.copied.isComplete()) {
                return;
            }
            releaseHost(slot);
        }
    }

    /**
     * Blocks until the oldest host batch still in flight has been copied, and releases it (and any later ones that
     * are done). The time counts as slot wait. Does nothing when no copy is in flight.
     */
    public void awaitOldestCopy() {
        ensureOpen();
        if (hostReleased < submitted) {
            long start = System.nanoTime();
            slots[(int) (hostReleased % slots.length)].copied.synchronize();
            slotWaitNanos += System.nanoTime() - start;
            pollCopies();
        }
    }

    /** Blocks until every host batch in flight has been copied and released (e.g. before the loader's next epoch). */
    public void awaitCopies() {
        while (hostReleased < submitted) {
            awaitOldestCopy();
        }
    }

    /** Host batches submitted whose copies have not yet been seen complete. */
    public int hostBatchesInFlight() {
        return (int) (submitted - hostReleased);
    }

    /** Time blocked in {@link DeviceBatch#awaitReady()} so far (no snapshot allocated). */
    long readyWaitNanos() {
        return readyWaitNanos;
    }

    public PipelineStats stats() {
        return new PipelineStats(batches, images, bytesCopied, 0, slotWaitNanos, readyWaitNanos, notReadyAtHandOff, 0);
    }

    /**
     * Waits for every copy and augmentation in flight, releases the host batches still pending (in order) and frees
     * all device memory and events. Device batches the trainer still holds become invalid; closing them later is
     * harmless. Closing twice is harmless.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException first = null;
        try {
            while (hostReleased < submitted) {
                Slot slot = slots[(int) (hostReleased % slots.length)];
                slot.copied.synchronize();
                releaseHost(slot);
            }
            for (Slot slot : slots) {
                if (slot.used) {
                    slot.ready.synchronize();
                    if (slot.consumedRecorded) {
                        slot.consumed.synchronize();
                    }
                }
            }
        } catch (RuntimeException e) {
            first = e;
        }
        if (first == null) {
            CloseHelper.closeAll(slots); // frees every slot, then throws the first failure with the others suppressed
        } else {
            CloseHelper.closeAll(first::addSuppressed, slots);
            throw first;
        }
    }

    public boolean isClosed() {
        return closed;
    }

    void release(DeviceBatch batch, boolean afterStream, long trainerStream) {
        if (closed) {
            return;
        }
        Slot slot = slots[batch.slot()];
        if (!slot.held || slot.batch.generation() != batch.generation()) {
            throw new IllegalStateException("device batch released twice");
        }
        if (afterStream) {
            backend.recordOnStream(slot.consumed, trainerStream);
            slot.consumedRecorded = true;
        }
        slot.held = false;
    }

    void checkHeld(DeviceBatch batch) {
        ensureOpen();
        if (!slots[batch.slot()].held) {
            throw new IllegalStateException("device batch used after it was released");
        }
    }

    void awaitReady(DeviceBatch batch) {
        checkHeld(batch);
        DeviceEvent ready = batch.readyEventObject();
        if (!ready.isComplete()) {
            long start = System.nanoTime();
            ready.synchronize();
            readyWaitNanos += System.nanoTime() - start;
        }
        pollCopies();
    }

    private void releaseHost(Slot slot) {
        HostBatch host = slot.pendingHost;
        slot.pendingHost = null;
        hostReleased++;
        host.release();
    }

    private void validate(HostBatch batch) {
        if (batch == null) {
            throw new IllegalArgumentException("host batch is null");
        }
        int n = batch.size();
        if (n <= 0 || n > options.maxBatch() || batch.height() != options.height() || batch.width() != options.width()
            || batch.channels() != 3) {
            throw new IllegalArgumentException("host batch of " + n + "x" + batch.height() + "x" + batch.width() + "x"
                + batch.channels() + " does not fit this pipeline (up to " + options.maxBatch() + "x" + options.height()
                + "x" + options.width() + "x3)");
        }
        if (batch.imagesAddress() == 0 || batch.labelsAddress() == 0) {
            throw new IllegalArgumentException("host batch has a null images or labels address");
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("device batch pipeline is closed");
        }
    }

    /** One ring entry: device buffers, the host jitter table, three events and the reusable DeviceBatch. */
    private final class Slot implements AutoCloseable {
        final DeviceBatch batch;
        DeviceBuffer deviceImages;
        DeviceBuffer deviceLabels;
        DeviceBuffer deviceParams;
        DeviceBuffer deviceOutput;
        NativeRegion hostParams;
        DeviceEvent copied;
        DeviceEvent ready;
        DeviceEvent consumed;
        HostBatch pendingHost;
        boolean held;
        boolean used;
        boolean consumedRecorded;

        Slot(int index) {
            batch = new DeviceBatch(DeviceBatchPipeline.this, index);
            try {
                copied = backend.createEvent();
                ready = backend.createEvent();
                consumed = backend.createEvent();
                deviceImages = backend.allocateDevice(options.imageBytes());
                deviceLabels = backend.allocateDevice((long) options.maxBatch() * LABEL_BYTES);
                if (options.augment() != null) {
                    long paramBytes = (long) options.maxBatch() * JitterParams.BYTES_PER_SAMPLE;
                    deviceParams = backend.allocateDevice(paramBytes);
                    hostParams = backend.hostAllocator().allocate(paramBytes, 64);
                    deviceOutput = backend.allocateDevice(options.outputBytes());
                }
            } catch (RuntimeException | Error e) {
                CloseHelper.closeAll(e::addSuppressed, this);
                throw e;
            }
        }

        /** Frees everything the slot holds, carrying on past failures; throws the first, the others suppressed. */
        @Override
        public void close() {
            try {
                CloseHelper.closeAll(deviceImages, deviceLabels, deviceParams, deviceOutput, hostParams, copied, ready,
                    consumed);
            } finally {
                deviceImages = deviceLabels = deviceParams = deviceOutput = null;
                hostParams = null;
                copied = ready = consumed = null;
            }
        }
    }
}
