package io.pinshard.cuda.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.cuda.TestBatch;
import io.pinshard.cuda.augment.AugmentSpec;
import io.pinshard.cuda.augment.JitterParams;
import io.pinshard.cuda.augment.ReferenceAugmenterTest;
import io.pinshard.cuda.pipeline.DeviceBatch;
import io.pinshard.cuda.pipeline.DeviceBatchPipeline;
import io.pinshard.cuda.pipeline.DeviceBatchStream;
import io.pinshard.cuda.pipeline.PipelineOptions;
import io.pinshard.memory.HostBatch;
import io.pinshard.memory.HostBatchSource;
import io.pinshard.memory.NativeRegion;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link DeviceBackend} contract, run against every backend like Netty's {@code AbstractByteBufTest}: the host
 * backend, the test's {@link io.pinshard.cuda.ManualCopyBackend} (copies complete only when waited for) and the CUDA
 * backend (skips without a GPU). Besides the single operations it drives the whole ring protocol (a loader-like
 * source that reuses three host slots, {@link DeviceBatchPipeline}, {@link DeviceBatchStream}) and checks every device
 * batch against the host data it was copied from, so the day a GPU is present the protocol is proven on the real
 * backend. After each test the backend's host allocator must hold no more live regions than before.
 */
abstract class AbstractDeviceBackendTest {
    private static final int H = 6;
    private static final int W = 7;

    protected DeviceBackend backend;
    private long hostRegionsBefore;
    private final List<TestBatch> batches = new ArrayList<>();

    /** The backend under test; may skip the test through an assumption (no GPU). */
    protected abstract DeviceBackend openBackend();

    /** {@link DeviceType#CPU} unless overridden: the host backends' "device" is host memory. */
    protected DeviceType expectedDeviceType() {
        return DeviceType.CPU;
    }

    /** Whether {@link DeviceBackend#hostAllocator()} hands out page-locked memory (not on the host backends). */
    protected boolean pageLockedHostSlots() {
        return false;
    }

    /**
     * {@code bytes} of device memory at {@code deviceAddress}, read on the host once the test has waited for the work
     * that wrote them. The host backends' device memory is host memory, read as it is.
     */
    protected byte[] readBack(long deviceAddress, int bytes) {
        byte[] out = new byte[bytes];
        new UnsafeBuffer(deviceAddress, bytes).getBytes(0, out);
        return out;
    }

    /**
     * Largest allowed difference of augmented float32 output from {@link io.pinshard.cuda.augment.ReferenceAugmenter}.
     */
    protected float augmentTolerance() {
        return 0;
    }

    @BeforeEach
    final void open() {
        backend = openBackend();
        hostRegionsBefore = backend.hostAllocator().liveRegions();
    }

    @AfterEach
    final void closeAndCheckForLeaks() {
        if (backend == null) {
            return;
        }
        batches.forEach(TestBatch::free);
        long live = backend.hostAllocator().liveRegions();
        backend.close();
        assertEquals(hostRegionsBefore, live, "host regions left open on " + backend.hostAllocator().name());
    }

    private TestBatch batch(long firstSample, int size, long seed) {
        TestBatch b = new TestBatch(backend.hostAllocator(), "b" + firstSample, firstSample, size, H, W, seed, null);
        batches.add(b);
        return b;
    }

    private static byte[] randomBytes(int n, long seed) {
        byte[] bytes = new byte[n];
        new SplittableRandom(seed).nextBytes(bytes);
        return bytes;
    }

    @Test
    void describesItself() {
        assertFalse(backend.name().isBlank());
        assertEquals(expectedDeviceType(), backend.deviceType());
        assertTrue(backend.deviceId() >= 0);
        assertEquals(expectedDeviceType() == DeviceType.CUDA, backend.computeStreamHandle() != 0,
            "a native compute stream exactly on cuda");
        try (NativeRegion slot = backend.hostAllocator().allocate(4096, 4096)) {
            assertEquals(pageLockedHostSlots(), slot.pageLocked(), slot.toString());
        }
    }

    @Test
    void copyIsOnTheDeviceOnceItsEventIsReached() {
        int n = 100_003;
        byte[] content = randomBytes(n, 1);
        try (NativeRegion host = backend.hostAllocator().allocate(n, 64);
             DeviceBuffer device = backend.allocateDevice(n);
             DeviceEvent copied = backend.createEvent()) {
            assertTrue(device.length() >= n);
            new UnsafeBuffer(host.address(), n).putBytes(0, content);
            backend.copyToDevice(device.address(), host.address(), n);
            backend.recordOnCopyStream(copied);
            copied.synchronize();
            assertTrue(copied.isComplete());
            assertArrayEquals(content, readBack(device.address(), n));
        }
    }

    @Test
    void copiesOnTheCopyStreamRunInSubmissionOrder() {
        int n = 64 * 1024;
        byte[] first = randomBytes(n, 2);
        byte[] second = randomBytes(n, 3);
        try (NativeRegion a = backend.hostAllocator().allocate(n, 64);
             NativeRegion b = backend.hostAllocator().allocate(n, 64);
             DeviceBuffer device = backend.allocateDevice(2L * n);
             DeviceEvent done = backend.createEvent()) {
            new UnsafeBuffer(a.address(), n).putBytes(0, first);
            new UnsafeBuffer(b.address(), n).putBytes(0, second);
            backend.copyToDevice(device.address(), a.address(), n);
            backend.copyToDevice(device.address() + n, a.address(), n);
            backend.copyToDevice(device.address() + n, b.address(), n); // overwrites the copy before it
            backend.recordOnCopyStream(done);
            done.synchronize();
            byte[] back = readBack(device.address(), 2 * n);
            byte[] expected = new byte[2 * n];
            System.arraycopy(first, 0, expected, 0, n);
            System.arraycopy(second, 0, expected, n, n);
            assertArrayEquals(expected, back);
        }
    }

    @Test
    void computeStreamAugmentsWhatTheCopyStreamDeliveredBeforeItsEvent() {
        AugmentSpec spec = AugmentSpec.jitter(0.4f, 0.4f, 0.4f, 11);
        TestBatch host = batch(500, 3, 21);
        int pixels = 3 * H * W * 3;
        int paramBytes = 3 * JitterParams.BYTES_PER_SAMPLE;
        int outBytes = 3 * 3 * H * W * spec.output().bytes();
        try (NativeRegion params = backend.hostAllocator().allocate(paramBytes, 64);
             DeviceBuffer source = backend.allocateDevice(pixels);
             DeviceBuffer deviceParams = backend.allocateDevice(paramBytes);
             DeviceBuffer target = backend.allocateDevice(outBytes);
             DeviceEvent copied = backend.createEvent();
             DeviceEvent augmented = backend.createEvent()) {
            UnsafeBuffer table = new UnsafeBuffer(params.address(), paramBytes);
            for (int i = 0; i < 3; i++) {
                JitterParams.write(spec, host.epoch(), host.sampleId(i), table, i);
            }
            backend.copyToDevice(source.address(), host.imagesAddress(), pixels);
            backend.copyToDevice(deviceParams.address(), params.address(), paramBytes);
            backend.recordOnCopyStream(copied);
            backend.computeStreamWaitFor(copied);
            backend.augment(source.address(), deviceParams.address(), target.address(), 3, H, W, spec);
            backend.recordOnComputeStream(augmented);
            augmented.synchronize();
            assertTrue(augmented.isComplete());
            assertClose(ReferenceAugmenterTest.augmentOnHost(host, spec), readBack(target.address(), outBytes));
        }
    }

    private void assertClose(byte[] expectedFloats, byte[] actualFloats) {
        if (augmentTolerance() == 0) {
            assertArrayEquals(expectedFloats, actualFloats);
            return;
        }
        assertArrayEquals(ReferenceAugmenterTest.floats(expectedFloats), ReferenceAugmenterTest.floats(actualFloats),
            augmentTolerance());
    }

    @Test
    void eventOnTheCallersStreamIsReachedAfterItsWork() {
        try (DeviceEvent event = backend.createEvent()) {
            backend.recordOnStream(event, backend.computeStreamHandle());
            event.synchronize();
            assertTrue(event.isComplete());
            if (backend.deviceType() == DeviceType.CUDA) {
                assertNotEquals(0, event.handle(), "a native event the trainer's stream can wait on");
            }
        }
    }

    @Test
    void deviceBufferRefusesUseAfterCloseAndClosesOnce() {
        DeviceBuffer buffer = backend.allocateDevice(4096);
        assertNotEquals(0, buffer.address());
        buffer.close();
        assertDoesNotThrow(buffer::close, "closing twice is harmless");
        IllegalStateException e = assertThrows(IllegalStateException.class, buffer::address);
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(IllegalStateException.class, buffer::length);
    }

    @Test
    void closedBackendRefusesWorkAndClosesOnce() {
        DeviceBuffer buffer = backend.allocateDevice(64);
        long address = buffer.address();
        buffer.close();
        backend.close();
        assertDoesNotThrow(backend::close, "closing twice is harmless");
        for (Runnable use : new Runnable[] {() -> backend.allocateDevice(64), backend::createEvent,
            () -> backend.copyToDevice(address, address, 64)}) {
            IllegalStateException e = assertThrows(IllegalStateException.class, use::run);
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        }
    }

    @Test
    void ringProtocolDeliversEveryBatchIntactRaw() {
        ringProtocol(null);
    }

    @Test
    void ringProtocolDeliversEveryBatchIntactAugmented() {
        ringProtocol(AugmentSpec.jitter(0.4f, 0.4f, 0.4f, 5));
    }

    /**
     * Twelve batches (the last one short) through the stream, from a source that, like the loader, reuses three host
     * slots and refills a slot only once the pipeline released it, with five device slots and four batches in flight. Each device batch must equal what its host slot
     * held when it was handed out: a slot released before its copy completed would have been refilled under the copy.
     */
    private void ringProtocol(AugmentSpec spec) {
        int maxBatch = 4;
        RingSource source = new RingSource(3, maxBatch, 12, spec);
        // More device slots than host slots, so only the host slot protocol keeps a slot from refilling under a copy.
        PipelineOptions options = new PipelineOptions(maxBatch, H, W, 5, spec);
        int seen = 0;
        try (DeviceBatchStream stream = new DeviceBatchStream(source, new DeviceBatchPipeline(backend, options), 4)) {
            for (DeviceBatch device = stream.next(); device != null; device = stream.next()) {
                device.awaitReady();
                assertNotNull(device.images());
                int size = source.expectedSizes.get(seen);
                assertEquals(size, device.size());
                byte[] images = readBack(device.images().data(), (int) device.images().byteSize());
                byte[] expected = source.expectedImages.get(seen);
                if (spec == null) {
                    assertArrayEquals(expected, images, "batch " + seen);
                } else {
                    assertClose(expected, images);
                }
                ByteBuffer labels = ByteBuffer.wrap(readBack(device.labels().data(), size * 4))
                    .order(ByteOrder.LITTLE_ENDIAN);
                for (int i = 0; i < size; i++) {
                    assertEquals((int) ((seen * (long) maxBatch + i) * 7), labels.getInt(i * 4), "label " + i);
                }
                if (seen % 2 == 0) {
                    device.close();
                } else {
                    device.releaseAfter(backend.computeStreamHandle()); // as a trainer does after its step
                }
                seen++;
            }
        }
        assertEquals(12, seen);
        for (int slot = 0; slot < 3; slot++) {
            assertEquals(source.handedOut[slot], source.slots[slot].releases, "slot " + slot + " released once per use");
        }
    }

    /** A loader stand-in: {@code slots} host batches reused in turn, refilled only after their release. */
    private final class RingSource implements HostBatchSource {
        final TestBatch[] slots;
        final int[] handedOut;
        final int maxBatch;
        final int total;
        final AugmentSpec spec;
        final List<byte[]> expectedImages = new ArrayList<>();
        final List<Integer> expectedSizes = new ArrayList<>();
        int next;

        RingSource(int slotCount, int maxBatch, int total, AugmentSpec spec) {
            this.slots = new TestBatch[slotCount];
            this.handedOut = new int[slotCount];
            this.maxBatch = maxBatch;
            this.total = total;
            this.spec = spec;
            for (int i = 0; i < slotCount; i++) {
                slots[i] = batch(0, maxBatch, 0);
            }
        }

        @Override
        public HostBatch next() {
            if (next == total) {
                return null;
            }
            int slot = next % slots.length;
            TestBatch b = slots[slot];
            assertEquals(handedOut[slot], b.releases, "slot " + slot + " asked for again before it was released");
            int size = next == total - 1 ? maxBatch - 1 : maxBatch; // the last batch is short, as a loader's may be
            b.refill(next * (long) maxBatch, size, 1000 + next);
            expectedSizes.add(size);
            expectedImages.add(spec == null ? b.pixelBytes() : ReferenceAugmenterTest.augmentOnHost(b, spec));
            handedOut[slot]++;
            next++;
            return b;
        }

        @Override
        public int maxUnreleasedBeforeNext() {
            return slots.length - 1;
        }
    }
}
