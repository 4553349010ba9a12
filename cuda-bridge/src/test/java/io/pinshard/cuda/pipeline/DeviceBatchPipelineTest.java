package io.pinshard.cuda.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.cuda.ManualCopyBackend;
import io.pinshard.cuda.TestBatch;
import io.pinshard.cuda.augment.AugmentSpec;
import io.pinshard.cuda.augment.ReferenceAugmenterTest;
import io.pinshard.cuda.device.DeviceBackend;
import io.pinshard.cuda.device.DeviceBuffer;
import io.pinshard.cuda.device.HostBackend;
import io.pinshard.memory.DType;
import io.pinshard.memory.HeapCounter;
import java.util.ArrayList;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The ring protocol and error paths of {@link DeviceBatchPipeline}, on host backends (no GPU needed). */
class DeviceBatchPipelineTest {
    private static final int H = 4;
    private static final int W = 5;
    private final List<String> log = new ArrayList<>();
    private final List<TestBatch> batches = new ArrayList<>();

    @AfterEach
    void freeBatches() {
        batches.forEach(TestBatch::free);
    }

    private TestBatch batch(String name, long firstSample, int size) {
        TestBatch b = new TestBatch(io.pinshard.memory.HostMemoryAllocator.INSTANCE, name, firstSample, size, H, W,
            firstSample * 31 + 1, log);
        batches.add(b);
        return b;
    }

    private static byte[] deviceBytes(TensorDescriptor t) {
        byte[] out = new byte[(int) t.byteSize()];
        new UnsafeBuffer(t.data(), out.length).getBytes(0, out);
        return out;
    }

    @Test
    void hostBatchIsReleasedOnlyAfterItsCopyCompletedAndInOrder() {
        ManualCopyBackend backend = new ManualCopyBackend(log);
        try (DeviceBatchPipeline pipeline = new DeviceBatchPipeline(backend, PipelineOptions.raw(2, H, W).withRingSize(3))) {
            TestBatch a = batch("a", 0, 2);
            TestBatch b = batch("b", 2, 2);
            pipeline.submit(a).close();
            pipeline.submit(b).close();
            assertEquals(0, a.releases, "copy of a not complete yet");
            assertEquals(0, b.releases);
            assertEquals(2, pipeline.hostBatchesInFlight());

            backend.completeCopies(1);
            pipeline.pollCopies();
            assertEquals(1, a.releases);
            assertEquals(0, b.releases, "b's copy is still in flight");

            backend.completeCopies(1);
            pipeline.pollCopies();
            assertEquals(1, b.releases);
            assertEquals(0, pipeline.hostBatchesInFlight());
            assertTrue(log.indexOf("release a") < log.indexOf("release b"), "released in submission order: " + log);
        }
    }

    @Test
    void slotIsNotReusedBeforeItsPreviousCopyCompleted() {
        ManualCopyBackend backend = new ManualCopyBackend(log);
        try (DeviceBatchPipeline pipeline = new DeviceBatchPipeline(backend, PipelineOptions.raw(2, H, W).withRingSize(2))) {
            TestBatch a = batch("a", 0, 2);
            TestBatch b = batch("b", 2, 2);
            TestBatch c = batch("c", 4, 2);
            pipeline.submit(a).close();
            pipeline.submit(b).close();
            int beforeC = log.size();
            pipeline.submit(c).close(); // slot 0 again: a's copy never completed
            List<String> forC = log.subList(beforeC, log.size());
            int firstCopy = indexOfPrefix(forC, "copy ");
            assertTrue(forC.indexOf("release a") >= 0 && forC.indexOf("release a") < firstCopy,
                "a released (after a synchronize) before c is copied into its slot: " + forC);
            assertTrue(indexOfPrefix(forC, "sync ") < forC.indexOf("release a"), forC.toString());
            assertEquals(1, backend.synchronizations);
            assertTrue(pipeline.stats().slotWaitNanos() >= 0);
        }
    }

    private static int indexOfPrefix(List<String> entries, String prefix) {
        for (int i = 0; i < entries.size(); i++) {
            if (entries.get(i).startsWith(prefix)) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void deviceBatchesCarryTheHostDataInOrder() {
        try (HostBackend backend = new HostBackend();
             DeviceBatchPipeline pipeline = new DeviceBatchPipeline(backend, PipelineOptions.raw(3, H, W))) {
            for (int k = 0; k < 7; k++) {
                TestBatch host = batch("b" + k, k * 3L, k == 6 ? 2 : 3);
                try (DeviceBatch device = pipeline.submit(host)) {
                    assertEquals(host.size(), device.size());
                    assertEquals("NHWC", device.images().layout());
                    assertEquals(DType.UINT8, device.images().dtype());
                    assertArrayEquals(new long[] {host.size(), H, W, 3}, device.images().shapeArray());
                    assertArrayEquals(new long[] {H * W * 3, W * 3, 3, 1}, device.images().stridesArray());
                    assertArrayEquals(host.pixelBytes(), deviceBytes(device.images()), "batch " + k);
                    UnsafeBuffer labels = new UnsafeBuffer(device.labels().data(), host.size() * 4);
                    for (int i = 0; i < host.size(); i++) {
                        assertEquals((int) (host.sampleId(i) * 7), labels.getInt(i * 4));
                    }
                    assertTrue(device.isReady());
                }
                assertEquals(1, host.releases, "host backend copies complete at once");
            }
            assertEquals(7, pipeline.stats().batches());
            assertEquals(20, pipeline.stats().images());
        }
    }

    @Test
    void augmentedBatchMatchesTheReference() {
        AugmentSpec spec = AugmentSpec.jitter(0.4f, 0.4f, 0.4f, 99).withOutput(DType.FLOAT16);
        try (HostBackend backend = new HostBackend();
             DeviceBatchPipeline pipeline = new DeviceBatchPipeline(backend, PipelineOptions.raw(2, H, W).withAugment(spec))) {
            TestBatch host = batch("a", 40, 2);
            DeviceBatch device = pipeline.submit(host);
            assertEquals("NCHW", device.images().layout());
            assertEquals(DType.FLOAT16, device.images().dtype());
            assertArrayEquals(new long[] {2, 3, H, W}, device.images().shapeArray());
            byte[] expected = ReferenceAugmenterTest.augmentOnHost(host, spec);
            assertArrayEquals(expected, deviceBytes(device.images()));
            device.close();
        }
    }

    @Test
    void submittingWhileTheTrainerHoldsEverySlotFails() {
        try (HostBackend backend = new HostBackend();
             DeviceBatchPipeline pipeline = new DeviceBatchPipeline(backend, PipelineOptions.raw(2, H, W).withRingSize(2))) {
            DeviceBatch first = pipeline.submit(batch("a", 0, 2));
            pipeline.submit(batch("b", 2, 2));
            assertFalse(pipeline.canSubmit());
            TestBatch c = batch("c", 4, 2);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> pipeline.submit(c));
            assertTrue(e.getMessage().contains("held by the trainer"), e.getMessage());
            assertEquals(0, c.releases, "a rejected batch stays the caller's");
            first.close();
            assertTrue(pipeline.canSubmit());
            assertDoesNotThrow(() -> pipeline.submit(c).close());
        }
    }

    @Test
    void releasingTwiceOrUsingAfterReleaseFails() {
        try (HostBackend backend = new HostBackend();
             DeviceBatchPipeline pipeline = new DeviceBatchPipeline(backend, PipelineOptions.raw(2, H, W))) {
            DeviceBatch device = pipeline.submit(batch("a", 0, 2));
            device.close();
            assertThrows(IllegalStateException.class, device::close);
            assertThrows(IllegalStateException.class, device::isReady);
            assertThrows(IllegalStateException.class, device::awaitReady);
        }
    }

    @Test
    void staleBatchObjectCannotReleaseTheSlotsNextBatch() {
        try (HostBackend backend = new HostBackend();
             DeviceBatchPipeline pipeline = new DeviceBatchPipeline(backend, PipelineOptions.raw(2, H, W).withRingSize(2))) {
            DeviceBatch first = pipeline.submit(batch("a", 0, 2));
            first.close();
            pipeline.submit(batch("b", 2, 2)).close();
            DeviceBatch third = pipeline.submit(batch("c", 4, 2)); // slot 0 again: same object, new generation
            assertSame(first, third);
            third.close();
            assertThrows(IllegalStateException.class, first::close);
        }
    }

    @Test
    void rejectsBatchesThatDoNotFit() {
        try (HostBackend backend = new HostBackend();
             DeviceBatchPipeline pipeline = new DeviceBatchPipeline(backend, PipelineOptions.raw(2, H, W))) {
            assertThrows(IllegalArgumentException.class, () -> pipeline.submit(null));
            TestBatch tooMany = batch("big", 0, 3);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pipeline.submit(tooMany));
            assertTrue(e.getMessage().contains("does not fit"), e.getMessage());
            TestBatch wrongShape = new TestBatch(backend.hostAllocator(), "shape", 0, 1, H + 1, W, 1, log);
            batches.add(wrongShape);
            assertThrows(IllegalArgumentException.class, () -> pipeline.submit(wrongShape));
            assertEquals(0, tooMany.releases + wrongShape.releases);
        }
        assertThrows(IllegalArgumentException.class, () -> new PipelineOptions(0, H, W, 3, null));
        assertThrows(IllegalArgumentException.class, () -> new PipelineOptions(2, H, W, 1, null));
        assertThrows(IllegalArgumentException.class, () -> new DeviceBatchPipeline(null, PipelineOptions.raw(2, H, W)));
    }

    @Test
    void closeReleasesPendingHostBatchesAndLaterUseFails() {
        ManualCopyBackend backend = new ManualCopyBackend(log);
        DeviceBatchPipeline pipeline = new DeviceBatchPipeline(backend, PipelineOptions.raw(2, H, W).withRingSize(3));
        TestBatch a = batch("a", 0, 2);
        TestBatch b = batch("b", 2, 2);
        DeviceBatch heldByTrainer = pipeline.submit(a);
        pipeline.submit(b).close();
        assertEquals(0, a.releases + b.releases);
        pipeline.close();
        assertEquals(1, a.releases, "close waits for the copy and gives the slot back");
        assertEquals(1, b.releases);
        assertTrue(log.indexOf("release a") < log.indexOf("release b"));
        assertDoesNotThrow(heldByTrainer::close, "releasing after close is harmless");
        assertDoesNotThrow(pipeline::close, "closing twice is harmless");
        assertEquals(1, a.releases, "not released twice");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> pipeline.submit(batch("c", 4, 2)));
        assertTrue(e.getMessage().contains("closed"));
        assertThrows(IllegalStateException.class, pipeline::canSubmit);
    }

    @Test
    void releaseAfterTrainerStreamRecordsAnEventTheSlotWaitsFor() {
        ManualCopyBackend backend = new ManualCopyBackend(log);
        try (DeviceBatchPipeline pipeline = new DeviceBatchPipeline(backend, PipelineOptions.raw(2, H, W).withRingSize(2))) {
            pipeline.submit(batch("a", 0, 2)).releaseAfter(1234);
            assertTrue(log.stream().anyMatch(s -> s.startsWith("record trainer stream")), log.toString());
        }
    }

    @Test
    void steadyStateAllocatesNothingOnTheHeap() {
        AugmentSpec spec = AugmentSpec.jitter(0.2f, 0.2f, 0.2f, 5);
        try (HostBackend backend = new HostBackend();
             DeviceBatchPipeline pipeline = new DeviceBatchPipeline(backend, PipelineOptions.raw(2, H, W).withAugment(spec))) {
            TestBatch host = new TestBatch(backend.hostAllocator(), "a", 0, 2, H, W, 1, null); // no log: logging allocates
            batches.add(host);
            for (int i = 0; i < 2_000; i++) {
                pipeline.submit(host).close(); // warm-up: class loading, JIT
            }
            long before = HeapCounter.currentThreadAllocatedBytes();
            for (int i = 0; i < 1_000; i++) {
                pipeline.submit(host).close();
            }
            long allocated = HeapCounter.currentThreadAllocatedBytes() - before;
            assertTrue(allocated < 1024, "1000 batches allocated " + allocated + " heap bytes");
        }
    }

    @Test
    void failedAllocationFreesWhatWasAlreadyAllocated() {
        int[] live = {0};
        int[] allocations = {0};
        try (HostBackend host = new HostBackend()) {
            java.lang.reflect.InvocationHandler handler = (proxy, method, args) -> {
                if (method.getName().equals("allocateDevice")) {
                    if (++allocations[0] == 7) {
                        throw new OutOfMemoryError("device full (test)");
                    }
                    DeviceBuffer real = host.allocateDevice((Long) args[0]);
                    live[0]++;
                    return new DeviceBuffer() {
                        @Override
                        public long address() {
                            return real.address();
                        }

                        @Override
                        public long length() {
                            return real.length();
                        }

                        @Override
                        public void close() {
                            live[0]--;
                            real.close();
                        }
                    };
                }
                return method.invoke(host, args);
            };
            DeviceBackend failing = (DeviceBackend) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {DeviceBackend.class}, handler);
            // Each augmenting slot makes 4 device buffers: the 7th allocation fails inside slot 1.
            OutOfMemoryError e = assertThrows(OutOfMemoryError.class, () -> new DeviceBatchPipeline(failing,
                PipelineOptions.raw(2, H, W).withAugment(AugmentSpec.normaliseOnly())));
            assertEquals("device full (test)", e.getMessage());
            assertEquals(0, live[0], "every buffer allocated before the failure was freed");
        }
    }
}
