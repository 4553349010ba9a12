package io.pinshard.cuda.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.cuda.CudaTestSupport;
import io.pinshard.cuda.TestBatch;
import io.pinshard.cuda.device.CudaBackend;
import io.pinshard.cuda.device.DeviceBuffer;
import io.pinshard.cuda.device.DeviceType;
import io.pinshard.cuda.runtime.CudaException;
import io.pinshard.cuda.runtime.HostRegistration;
import io.pinshard.memory.BatchMemoryAllocator;
import io.pinshard.memory.HostMemoryAllocator;
import java.io.RandomAccessFile;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.agrona.BufferUtil;
import org.agrona.CloseHelper;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The ring on a real GPU from host memory the backend did not allocate (registered, pageable, a read-only mapping),
 * and error reporting. Pinned slots, the alignment of pinned regions and the ring protocol itself are covered by the
 * contract suites ({@link io.pinshard.cuda.device.CudaBackendTest},
 * {@link io.pinshard.cuda.runtime.PinnedMemoryAllocatorTest}). Skips without a device.
 */
class CudaPipelineGpuTest {
    @BeforeEach
    void needsCuda() {
        CudaTestSupport.assumeCuda();
    }

    private static void roundTrip(BatchMemoryAllocator allocator) {
        List<String> log = new ArrayList<>();
        List<TestBatch> made = new ArrayList<>();
        try (CudaBackend backend = CudaBackend.open(0);
             DeviceBatchPipeline pipeline = new DeviceBatchPipeline(backend, PipelineOptions.raw(4, 32, 32).withRingSize(3))) {
            for (int k = 0; k < 10; k++) {
                TestBatch host = new TestBatch(allocator, "b" + k, k * 4L,
                    4, 32, 32, k, log);
                made.add(host);
                DeviceBatch device = pipeline.submit(host);
                assertEquals(DeviceType.CUDA, device.images().deviceType());
                device.awaitReady();
                assertArrayEquals(host.pixelBytes(), CudaTestSupport.readBack(backend, device.images().data(), 4 * 32 * 32 * 3),
                    "batch " + k);
                device.releaseAfter(0);
            }
        }
        for (TestBatch b : made) {
            assertEquals(1, b.releases, b.name + " released exactly once");
            b.free();
        }
    }

    @Test
    void registeredOffHeapSlotsRoundTrip() {
        roundTrip(HostRegistration.registering(HostMemoryAllocator.INSTANCE));
    }

    @Test
    void pageableSlotsRoundTrip() {
        roundTrip(HostMemoryAllocator.INSTANCE);
    }

    @Test
    void readOnlyMappedFileCopiesStraightToTheDevice() throws Exception {
        Path file = Files.createTempFile("pinshard-mapped", ".bin");
        byte[] content = new byte[3 * 4096 + 123];
        new java.util.Random(4).nextBytes(content);
        Files.write(file, content);
        MappedByteBuffer mapping;
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            mapping = raf.getChannel().map(FileChannel.MapMode.READ_ONLY, 0, content.length);
        }
        try (CudaBackend backend = CudaBackend.open(0);
             HostRegistration ignored = HostRegistration.register(BufferUtil.address(mapping), content.length, true)) {
            DeviceBuffer device = backend.allocateDevice(content.length);
            backend.copyToDevice(device.address(), BufferUtil.address(mapping) + 100, content.length - 100);
            byte[] back = CudaTestSupport.readBack(backend, device.address(), content.length - 100);
            assertArrayEquals(java.util.Arrays.copyOfRange(content, 100, content.length), back);
            device.close();
        } finally {
            IoUtil.unmap(mapping);
            Files.delete(file);
        }
    }

    @Test
    void registerReadOnlyRegistersEveryMappingAndUndoesThemWhenOneFails() throws Exception {
        Path file = Files.createTempFile("pinshard-mapped", ".bin");
        Files.write(file, new byte[2 * 4096 + 17]);
        MappedByteBuffer mapping;
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            mapping = raf.getChannel().map(FileChannel.MapMode.READ_ONLY, 0, 2 * 4096 + 17);
        }
        try {
            UnsafeBuffer first = new UnsafeBuffer(mapping, 0, 4096);
            UnsafeBuffer second = new UnsafeBuffer(mapping, 4096, 4096 + 17);
            HostRegistration[] both = HostRegistration.registerReadOnly(first, second);
            assertEquals(2, both.length);
            assertEquals(4096, both[0].length());
            assertEquals(2 * 4096, both[1].length(), "widened to whole pages");
            CloseHelper.closeAll(both);
            // The second fails (no memory at address 0): the first must have been unregistered again, so registering
            // it once more succeeds instead of failing with "already registered".
            UnsafeBuffer nowhere = new UnsafeBuffer(0, 4096);
            assertThrows(IllegalArgumentException.class, () -> HostRegistration.registerReadOnly(first, nowhere));
            HostRegistration.registerReadOnly(first)[0].close();
        } finally {
            IoUtil.unmap(mapping);
            Files.delete(file);
        }
    }

    @Test
    void failuresNameTheCall() {
        try (CudaBackend backend = CudaBackend.open(0)) {
            assertThrows(OutOfMemoryError.class, () -> backend.allocateDevice(1L << 50));
            assertThrows(IllegalArgumentException.class, () -> CudaBackend.open(1 << 20));
            // Reading from an address that is not device memory: the copy fails and names cudaMemcpy.
            CudaException e = assertThrows(CudaException.class, () -> backend.copyToHost(BufferUtil.address(
                java.nio.ByteBuffer.allocateDirect(16)), 16, 16));
            assertTrue(e.getMessage().contains("cudaMemcpy"), e.getMessage());
        }
    }
}
