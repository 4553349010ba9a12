package io.pinshard.cuda.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.pinshard.cuda.TestBatch;
import io.pinshard.cuda.augment.AugmentSpec;
import io.pinshard.cuda.device.DeviceBackend;
import io.pinshard.cuda.device.DeviceBackends;
import io.pinshard.cuda.device.DeviceType;
import io.pinshard.cuda.device.HostBackend;
import io.pinshard.cuda.pipeline.DeviceBatch;
import io.pinshard.cuda.pipeline.DeviceBatchPipeline;
import io.pinshard.cuda.pipeline.PipelineOptions;
import org.junit.jupiter.api.Test;

/**
 * CUDA detection on a machine without a GPU or driver (this one, CI): one clear reason, no linkage error, and the
 * host backend fully usable afterwards. On a GPU machine the "unavailable" checks skip.
 */
class CudaAvailabilityTest {
    @Test
    void missingDriverGivesOneClearReasonAndNoLinkageError() {
        CudaAvailability.Status status = CudaAvailability.status();
        assumeFalse(status.available(), "CUDA is available here: " + status.describe());
        assertFalse(status.reason().isEmpty());
        assertFalse(status.reason().contains("\n"), "one line: " + status.reason());
        assertTrue(status.describe().startsWith("CUDA unavailable: "), status.describe());
        if (!new java.io.File("/usr/lib/x86_64-linux-gnu/libcuda.so.1").exists() && System.getenv("LD_LIBRARY_PATH") == null) {
            assertTrue(status.reason().contains("libcuda.so.1") && status.reason().contains("NVIDIA driver"),
                status.reason());
        }
        assertSame(status, CudaAvailability.status(), "probed once");
    }

    @Test
    void cudaBackendRefusesWithTheReasonAndTheHostBackendStillWorks() {
        CudaAvailability.Status status = CudaAvailability.status();
        assumeFalse(status.available(), "CUDA is available here: " + status.describe());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> DeviceBackends.open("cuda"));
        assertTrue(e.getMessage().contains(status.reason()), e.getMessage());
        assertTrue(e.getMessage().contains("--device host"), e.getMessage());
        assertThrows(IllegalStateException.class, PinnedMemoryAllocator::new);
        assertThrows(IllegalStateException.class, () -> HostRegistration.register(4096, 4096, false));
        assertThrows(IllegalStateException.class, () -> HostRegistration.registerReadOnly(
            new org.agrona.concurrent.UnsafeBuffer(java.nio.ByteBuffer.allocateDirect(4096))));
        // Asking twice gives the same clear refusal, not a NoClassDefFoundError.
        assertThrows(IllegalStateException.class, () -> DeviceBackends.open("cuda"));

        try (DeviceBackend auto = DeviceBackends.open("auto")) {
            assertInstanceOf(HostBackend.class, auto);
            try (DeviceBatchPipeline pipeline = new DeviceBatchPipeline(auto,
                PipelineOptions.raw(1, 2, 2).withAugment(AugmentSpec.normaliseOnly()))) {
                TestBatch host = new TestBatch(auto.hostAllocator(), "a", 0, 1, 2, 2, 1, null);
                try (DeviceBatch device = pipeline.submit(host)) {
                    assertEquals(DeviceType.CPU, device.images().deviceType());
                    assertEquals(12, device.images().byteSize() / 4);
                } finally {
                    pipeline.close();
                    host.free();
                }
                assertEquals(1, host.releases);
            }
        }
    }

    @Test
    void explainsEachMissingLibrary() {
        Throwable driver = new UnsatisfiedLinkError("no jnicudart in java.library.path: /usr/lib");
        driver.initCause(new UnsatisfiedLinkError("/root/.javacpp/cache/x/libjnicudart.so: libcuda.so.1: cannot open "
            + "shared object file: No such file or directory"));
        assertEquals("the NVIDIA driver library libcuda.so.1 was not found (no NVIDIA driver installed on this machine)",
            CudaAvailability.explainLoadFailure(driver));

        Throwable runtime = new UnsatisfiedLinkError("/tmp/libjnicudart.so: libcudart.so.13: cannot open shared object "
            + "file: No such file or directory");
        String reason = CudaAvailability.explainLoadFailure(runtime);
        assertTrue(reason.contains("libcudart.so.13") && reason.contains("CUDA 13 runtime"), reason);

        String other = CudaAvailability.explainLoadFailure(new NoClassDefFoundError("Could not initialize class x\nmore"));
        assertTrue(other.contains("NoClassDefFoundError") && !other.contains("\n"), other);
    }

    @Test
    void unknownDeviceChoiceIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DeviceBackends.open("tpu"));
        assertTrue(e.getMessage().contains("host, cuda or auto"), e.getMessage());
        try (DeviceBackend host = DeviceBackends.open(" HOST ")) {
            assertEquals("host", host.name());
        }
    }

    @Test
    void failedStatusNamesTheCall() {
        CudaCheck.runtime(0, "cudaMemcpyAsync");
        CudaCheck.driver(0, "cuLaunchKernel");
        CudaException e = assertThrows(CudaException.class, () -> CudaCheck.runtime(2, "cudaMalloc(64 bytes)"));
        assertTrue(e.getMessage().startsWith("cudaMalloc(64 bytes) failed: status 2"), e.getMessage());
        assertEquals("cudaMalloc(64 bytes)", e.call());
        assertEquals(2, e.status());
        CudaException d = assertThrows(CudaException.class, () -> CudaCheck.driver(700, "cuLaunchKernel"));
        assertEquals(700, d.status());
        CudaException n = assertThrows(CudaException.class, () -> CudaCheck.nvrtc(6, "nvrtcCompileProgram"));
        assertTrue(n.getMessage().contains("nvrtcCompileProgram"));
    }
}
