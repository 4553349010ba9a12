package io.pinshard.cuda.augment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.cuda.CudaTestSupport;
import io.pinshard.cuda.TestBatch;
import io.pinshard.cuda.device.CudaBackend;
import io.pinshard.cuda.pipeline.DeviceBatch;
import io.pinshard.cuda.pipeline.DeviceBatchPipeline;
import io.pinshard.cuda.pipeline.PipelineOptions;
import io.pinshard.memory.DType;
import io.pinshard.memory.HostMemoryAllocator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The GPU kernel against its CPU reference. Needs a CUDA device; skips with the reason elsewhere. */
class CudaAugmentGpuTest {
    @BeforeEach
    void needsCuda() {
        CudaTestSupport.assumeCuda();
    }

    private static byte[] onGpu(TestBatch host, AugmentSpec spec) {
        try (CudaBackend backend = CudaBackend.open(0);
             DeviceBatchPipeline pipeline = new DeviceBatchPipeline(backend,
                 new PipelineOptions(host.size(), host.height(), host.width(), 2, spec))) {
            try (DeviceBatch device = pipeline.submit(host)) {
                device.awaitReady();
                return CudaTestSupport.readBack(backend, device.images().data(), (int) device.images().byteSize());
            }
        }
    }

    @Test
    void float32MatchesTheReferenceWithin1e3() {
        // Odd sizes so partial blocks and a plane that is not a multiple of the block are covered.
        TestBatch host = new TestBatch(HostMemoryAllocator.INSTANCE, "gpu", 1000, 9, 37, 29, 5, null);
        try {
            AugmentSpec spec = AugmentSpec.jitter(0.4f, 0.4f, 0.4f, 77);
            float[] gpu = ReferenceAugmenterTest.floats(onGpu(host, spec));
            float[] cpu = ReferenceAugmenterTest.floats(ReferenceAugmenterTest.augmentOnHost(host, spec));
            float worst = 0;
            for (int i = 0; i < cpu.length; i++) {
                worst = Math.max(worst, Math.abs(gpu[i] - cpu[i]));
            }
            assertTrue(worst <= 1e-3f, "largest GPU/CPU difference " + worst);
            System.out.println("augment float32: largest GPU/CPU difference " + worst);
        } finally {
            host.free();
        }
    }

    @Test
    void halfOutputsMatchTheReference() {
        TestBatch host = new TestBatch(HostMemoryAllocator.INSTANCE, "gpu", 0, 4, 16, 16, 6, null);
        try {
            for (DType type : new DType[] {DType.FLOAT16, DType.BFLOAT16}) {
                AugmentSpec spec = AugmentSpec.jitter(0.3f, 0.3f, 0.3f, 1).withOutput(type);
                short[] gpu = ReferenceAugmenterTest.shorts(onGpu(host, spec));
                short[] cpu = ReferenceAugmenterTest.shorts(ReferenceAugmenterTest.augmentOnHost(host, spec));
                assertEquals(cpu.length, gpu.length);
                for (int i = 0; i < cpu.length; i++) {
                    // One unit in the last place is allowed where float32 results differ in their last bits.
                    assertTrue(Math.abs(cpu[i] - gpu[i]) <= 1, type + " element " + i + ": " + cpu[i] + " vs " + gpu[i]);
                }
            }
        } finally {
            host.free();
        }
    }

    @Test
    void jitterOffOnGpuIsPlainNormalisation() {
        TestBatch host = new TestBatch(HostMemoryAllocator.INSTANCE, "gpu", 0, 2, 8, 8, 7, null);
        try {
            AugmentSpec spec = AugmentSpec.normaliseOnly();
            assertArrayEquals(ReferenceAugmenterTest.floats(ReferenceAugmenterTest.augmentOnHost(host, spec)),
                ReferenceAugmenterTest.floats(onGpu(host, spec)), 1e-6f);
        } finally {
            host.free();
        }
    }
}
