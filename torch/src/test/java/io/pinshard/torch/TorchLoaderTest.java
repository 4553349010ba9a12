package io.pinshard.torch;

import static io.pinshard.torch.TorchTestData.BATCH;
import static io.pinshard.torch.TorchTestData.CROP;
import static io.pinshard.torch.TorchTestData.RECORDS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.memory.HeapCounter;
import io.pinshard.memory.HostMemoryAllocator;
import io.pinshard.loader.ring.Batch;
import io.pinshard.loader.Loader;
import org.agrona.concurrent.UnsafeBuffer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;

/** The host adapter's contract over a real loader: same bytes, no copy, revoked handles, bounded heap, no leak. */
class TorchLoaderTest extends TorchDatasetTest {
    private static long[] sizes(Tensor t) {
        return t.sizes().vec().get();
    }

    private static long[] strides(Tensor t) {
        return t.strides().vec().get();
    }

    /** Bytes of a uint8 tensor read through a copy libtorch made (clone), not through the slot. */
    private static byte[] bytesOf(Tensor t) {
        try (Tensor copy = t.clone()) {
            byte[] out = new byte[(int) copy.numel()];
            copy.data_ptr_byte().get(out);
            return out;
        }
    }

    private static byte[] slotBytes(Batch batch) {
        byte[] out = new byte[(int) batch.tensorBytes()];
        new UnsafeBuffer(batch.address(), out.length).getBytes(0, out);
        return out;
    }

    @Test
    @SuppressWarnings("try") // the step's PointerScope is opened for its close only
    void tensorsAreTheBatchWithoutACopy() {
        try (Loader loader = Loader.open(dataset, TorchTestData.options().build());
             TorchLoader batches = TorchLoader.of(loader);
             TorchEpoch epoch = batches.epoch(0)) {
            int seen = 0;
            int partial = 0;
            for (TorchBatch b : epoch) {
                // A trainer's step frees its temporaries (here the get(i) views) in a scope closed before the batch.
                try (b; PointerScope step = new PointerScope()) {
                    Batch raw = b.batch();
                    int n = raw.size();
                    Tensor x = b.images();
                    assertEquals(raw.address(), x.data_ptr().address(), "images() is the slot's memory");
                    assertEquals(torch.ScalarType.Byte.value, x.scalar_type().value);
                    assertArrayEquals(new long[] {n, CROP, CROP, 3}, sizes(x));
                    assertArrayEquals(slotBytes(raw), bytesOf(x));

                    Tensor y = b.labels();
                    Tensor ids = b.sampleIds();
                    assertEquals(torch.ScalarType.Long.value, y.scalar_type().value);
                    assertEquals(torch.ScalarType.Long.value, ids.scalar_type().value);
                    assertArrayEquals(new long[] {n}, sizes(y));
                    assertEquals(raw.sampleIdsAddress(), ids.data_ptr().address(), "sampleIds() is the slot's memory");
                    for (int i = 0; i < n; i++) {
                        assertEquals(raw.label(i), y.get(i).item_long(), "label " + i);
                        assertEquals(raw.sampleId(i), ids.get(i).item_long(), "sample id " + i);
                        assertEquals(raw.sampleId(i) % TorchTestData.CLASSES, raw.label(i));
                    }
                    partial += n < BATCH ? 1 : 0;
                    seen += n;
                }
            }
            assertEquals(RECORDS, seen);
            assertEquals(1, partial, "the last batch is partial");
            assertEquals(0, batches.keptPastClose(), "views freed by the step's scope before the release keep nothing");
            runEpoch(batches, 1); // the slot tensors made inside the scopes survived them
        }
    }

    @Test
    void normalizedIsTheReferenceFormulaInChannelsLastLayout() {
        TorchOptions options = TorchOptions.normalize(new float[] {0.5f, 0.25f, 0.125f}, new float[] {0.2f, 0.3f, 0.4f});
        try (Loader loader = Loader.open(dataset, TorchTestData.options().build());
             TorchLoader batches = TorchLoader.of(loader, options);
             TorchEpoch epoch = batches.epoch(1)) {
            for (TorchBatch b : epoch) {
                try (b) {
                    int n = b.size();
                    Tensor f = b.normalized();
                    assertEquals(torch.ScalarType.Float.value, f.scalar_type().value);
                    assertArrayEquals(new long[] {n, 3, CROP, CROP}, sizes(f));
                    assertArrayEquals(new long[] {3L * CROP * CROP, 1, 3L * CROP, 3}, strides(f));
                    assertTrue(f.is_contiguous(torch.MemoryFormat.ChannelsLast));
                    byte[] pixels = slotBytes(b.batch());
                    float[] values = new float[pixels.length];
                    try (Tensor nhwc = f.permute(0, 2, 3, 1).contiguous()) {
                        nhwc.data_ptr_float().get(values);
                    }
                    for (int i = 0; i < pixels.length; i++) {
                        int c = i % 3;
                        float expected = ((pixels[i] & 0xff) / 255f - options.mean(c)) / options.std(c);
                        assertEquals(expected, values[i], 1e-6, "element " + i);
                    }
                }
            }
        }
    }

    @Test
    void aHandleKeptPastCloseThrows() {
        try (Loader loader = Loader.open(dataset, TorchTestData.options().build());
             TorchLoader batches = TorchLoader.of(loader);
             TorchEpoch epoch = batches.epoch(0)) {
            TorchBatch b = epoch.next();
            Tensor x = b.images();
            Tensor y = b.labels();
            Tensor f = b.normalized();
            b.close();
            NullPointerException images = assertThrows(NullPointerException.class, x::sum);
            assertTrue(images.getMessage().contains("This pointer address is NULL"), images.getMessage());
            assertThrows(NullPointerException.class, y::sum);
            assertThrows(NullPointerException.class, f::sum);
            assertThrows(NullPointerException.class, () -> torch.add(f, f));
            IllegalStateException released = assertThrows(IllegalStateException.class, b::images);
            assertTrue(released.getMessage().contains("released"), released.getMessage());
            assertEquals(0, batches.keptPastClose(), "a bare handle is revoked, nothing kept");
            b.close(); // idempotent
            drain(epoch);
        }
    }

    @Test
    void aViewKeptPastCloseKeepsItsBatchAndHoldsTheSlotUntilFreed() {
        try (Loader loader = Loader.open(dataset, TorchTestData.options().prefetch(2).build());
             TorchLoader batches = TorchLoader.of(loader);
             TorchEpoch epoch = batches.epoch(0)) {
            TorchBatch first = epoch.next();
            Tensor permuted = first.images().permute(0, 3, 1, 2);
            Tensor narrowed = first.normalized().narrow(0, 1, 2);
            Tensor labelsView = first.labels().view(-1);
            byte[] pixels = bytesOf(permuted);
            float normalizedSum = narrowed.sum().item_float();
            long firstLabel = labelsView.get(0).item_long();
            long address = first.batch().address();
            first.close();
            assertEquals(3, batches.keptPastClose(), "images, normalized and labels left to the views");
            assertEquals(1, batches.slotsHeldByViews(), "the images view keeps slot 0 from the workers");
            epoch.next().close(); // slot 1
            assertArrayEquals(pixels, bytesOf(permuted), "the kept view still reads batch 0");
            assertEquals(normalizedSum, narrowed.sum().item_float());
            assertEquals(firstLabel, labelsView.get(0).item_long());
            // Batch 2 needs slot 0: refused while the view lives (a GC cannot free a referenced view).
            IllegalStateException held = assertThrows(IllegalStateException.class, epoch::next);
            assertTrue(held.getMessage().contains("held by a view of the images or sample ids of batch 0 of epoch 0"),
                held.getMessage());
            permuted.close(); // the storage's deleter gives slot 0 back
            assertEquals(0, batches.slotsHeldByViews());
            try (TorchBatch third = epoch.next()) {
                assertEquals(address, third.batch().address(), "same slot, fresh tensors over it");
                assertEquals(address, third.images().data_ptr().address());
                assertArrayEquals(slotBytes(third.batch()), bytesOf(third.images()));
                assertEquals(third.batch().label(0), third.labels().get(0).item_long());
            }
            assertEquals(normalizedSum, narrowed.sum().item_float(), "the normalized view kept its own storage");
            narrowed.close();
            labelsView.close();
            drain(epoch);
        }
    }

    @Test
    void aViewLeftToTheGarbageCollectorGivesItsSlotBackAfterACollection() {
        try (Loader loader = Loader.open(dataset, TorchTestData.options().prefetch(2).build());
             TorchLoader batches = TorchLoader.of(loader)) {
            for (int e = 0; e < 2; e++) {
                try (TorchEpoch epoch = batches.epoch(e)) {
                    for (TorchBatch b : epoch) {
                        try (b) {
                            // get(0) is a view of the slot's ids nobody closes: it holds the slot until collected
                            assertEquals(b.batch().sampleId(0), b.sampleIds().get(0).item_long());
                        }
                    }
                }
            }
            assertEquals(12, batches.keptPastClose(), "every batch's ids view outlived its batch");
            assertTrue(batches.slotsHeldByViews() <= 2, "at most the last batches' slots wait for a collection");
        }
    }

    private static void drain(TorchEpoch epoch) {
        for (TorchBatch b : epoch) {
            b.close();
        }
    }

    @Test
    void steadyStateCostsUnderOneKibOfHeapAndNoNativeAllocationPerBatch() {
        try (Loader loader = Loader.open(dataset, TorchTestData.options().build());
             TorchLoader batches = TorchLoader.of(loader)) {
            for (int e = 0; e < 3; e++) { // every slot wrapped, partial views made, JIT warm
                runEpoch(batches, e);
            }
            long batchesRun = 0;
            long heap = 0;
            long count = Pointer.totalCount();
            long bytes = Pointer.totalBytes();
            long made = batches.tensorsMade();
            for (int e = 3; e < 8; e++) {
                try (TorchEpoch epoch = batches.epoch(e)) {
                    long before = HeapCounter.currentThreadAllocatedBytes();
                    for (TorchBatch b : epoch) {
                        touch(b);
                        batchesRun++;
                    }
                    heap += HeapCounter.currentThreadAllocatedBytes() - before;
                }
            }
            // Slot 2 holds a full batch (2) and the partial one (5) of every epoch: both views are kept, none remade.
            assertEquals(made, batches.tensorsMade(), "tensors the adapter made in steady state");
            assertEquals(count, Pointer.totalCount(), "JavaCPP objects with native memory left per batch");
            assertEquals(bytes, Pointer.totalBytes(), "JavaCPP native bytes allocated per batch");
            long perBatch = heap / batchesRun;
            System.out.println("torch adapter: " + perBatch + " heap bytes per batch (4 tensors + close)");
            assertTrue(perBatch <= 1024, perBatch + " heap bytes per batch");
            assertEquals(0, batches.keptPastClose());
        }
    }

    private static void runEpoch(TorchLoader batches, int e) {
        try (TorchEpoch epoch = batches.epoch(e)) {
            for (TorchBatch b : epoch) {
                touch(b);
            }
        }
    }

    private static void touch(TorchBatch b) {
        try (b) {
            b.images();
            b.labels();
            b.sampleIds();
            b.normalized();
        }
    }

    @Test
    void closingFreesEveryTensorAndTheLoaderEveryRegion() {
        HostMemoryAllocator allocator = new HostMemoryAllocator();
        long count;
        try (Loader loader = Loader.open(dataset, TorchTestData.options().allocator(allocator)
                .scratchAllocator(allocator).build())) {
            count = Pointer.totalCount();
            TorchLoader batches = TorchLoader.of(loader);
            runEpoch(batches, 0);
            TorchEpoch epoch = batches.epoch(1);
            TorchBatch held = epoch.next();
            Tensor x = held.images();
            batches.close(); // releases the held batch too
            assertThrows(NullPointerException.class, x::sum);
            assertThrows(IllegalStateException.class, () -> batches.epoch(2));
            batches.close();
            epoch.close();
            assertEquals(count, Pointer.totalCount(), "libtorch objects left after TorchLoader.close()");
        }
        assertEquals(0, allocator.liveRegions(), "native regions left after the loader closed");
    }

    @Test
    void threadsAreSettable() {
        int before = Libtorch.threads();
        try {
            Libtorch.setThreads(1);
            assertEquals(1, Libtorch.threads());
        } finally {
            Libtorch.setThreads(before);
        }
        assertThrows(IllegalArgumentException.class, () -> Libtorch.setThreads(0));
    }
}
