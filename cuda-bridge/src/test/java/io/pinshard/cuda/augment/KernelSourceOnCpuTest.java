package io.pinshard.cuda.augment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.cuda.TestBatch;
import io.pinshard.memory.DType;
import io.pinshard.memory.HostMemoryAllocator;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernel source itself ({@code augment.cu}), compiled as C++ for the CPU with one thread per block and without
 * floating-point contraction, must produce exactly the Java reference's bytes. This checks the kernel's indexing and
 * arithmetic where no GPU is available; {@link CudaAugmentGpuTest} checks the real GPU. Skips without g++.
 */
@org.junit.jupiter.api.Tag("process")
class KernelSourceOnCpuTest {
    @TempDir
    static Path dir;
    private static Path binary;

    @BeforeAll
    static void compileKernelForTheCpu() throws Exception {
        assumeTrue(run(List.of("g++", "--version"), 30) == 0, "skipped: g++ is not installed, so the kernel source"
            + " cannot be compiled for the CPU here");
        copyResource(CudaAugmentKernel.SOURCE_RESOURCE, dir.resolve("augment.cu"));
        copyResource("kernel-on-cpu.cpp", dir.resolve("kernel-on-cpu.cpp"));
        binary = dir.resolve("kernel-on-cpu");
        int status = run(List.of("g++", "-O1", "-std=c++20", "-pthread", "-ffp-contract=off", "-I", dir.toString(), "-o",
            binary.toString(), dir.resolve("kernel-on-cpu.cpp").toString()), 120);
        assertEquals(0, status, "the kernel source does not compile as C++: see " + dir.resolve("log.txt") + "\n"
            + Files.readString(dir.resolve("log.txt")));
    }

    private static void copyResource(String name, Path target) throws IOException {
        try (InputStream in = CudaAugmentKernel.class.getResourceAsStream(name)) {
            Files.copy(in, target);
        }
    }

    private static int run(List<String> command, int seconds) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("log.txt").toFile()).start();
        } catch (IOException notFound) {
            return -1;
        }
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -2;
        }
        return p.exitValue();
    }

    private static byte[] kernelOnCpu(TestBatch batch, AugmentSpec spec, int threads) throws Exception {
        int n = batch.size();
        Path pixels = dir.resolve("pixels.bin");
        Path params = dir.resolve("params.bin");
        Path out = dir.resolve("out.bin");
        Files.write(pixels, batch.pixelBytes());
        ByteBuffer table = ByteBuffer.allocateDirect(n * JitterParams.BYTES_PER_SAMPLE);
        UnsafeBuffer view = new UnsafeBuffer(table);
        for (int i = 0; i < n; i++) {
            JitterParams.write(spec, batch.epoch(), batch.sampleId(i), view, i);
        }
        byte[] paramBytes = new byte[table.capacity()];
        view.getBytes(0, paramBytes);
        Files.write(params, paramBytes);
        List<String> command = new ArrayList<>(List.of(binary.toString(), Integer.toString(threads), Integer.toString(n),
            Integer.toString(batch.height()), Integer.toString(batch.width()),
            Integer.toString(CudaAugmentKernel.outputCode(spec.output()))));
        for (int c = 0; c < 3; c++) {
            command.add(Float.toHexString(spec.mean(c)));
        }
        for (int c = 0; c < 3; c++) {
            command.add(Float.toHexString(spec.invStd(c)));
        }
        command.addAll(List.of(pixels.toString(), params.toString(), out.toString()));
        assertEquals(0, run(command, 120), () -> {
            try {
                return Files.readString(dir.resolve("log.txt"), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return e.toString();
            }
        });
        return Files.readAllBytes(out);
    }

    @Test
    void kernelArithmeticIsTheReferencesBitForBit() throws Exception {
        // 23 x 17 = 391 pixels: not a multiple of the 64 threads, so the last stride is partial.
        TestBatch batch = new TestBatch(HostMemoryAllocator.INSTANCE, "k", 500, 5, 23, 17, 13, null);
        try {
            for (DType type : new DType[] {DType.FLOAT32, DType.FLOAT16, DType.BFLOAT16}) {
                AugmentSpec spec = AugmentSpec.jitter(0.5f, 0.5f, 0.5f, 31).withOutput(type);
                assertArrayEquals(ReferenceAugmenterTest.augmentOnHost(batch, spec), kernelOnCpu(batch, spec, 64),
                    type.toString());
            }
            AugmentSpec plain = AugmentSpec.normaliseOnly();
            assertArrayEquals(ReferenceAugmenterTest.augmentOnHost(batch, plain), kernelOnCpu(batch, plain, 1));
        } finally {
            batch.free();
        }
    }

    @Test
    void blockReductionSumsEveryWarp() throws Exception {
        // Contrast blends every pixel towards the block-reduced mean luminance: a warp or lane left out of the
        // sum changes the outputs. 8 warps and a single warp.
        TestBatch batch = new TestBatch(HostMemoryAllocator.INSTANCE, "k", 0, 2, 40, 40, 17, null);
        try {
            AugmentSpec spec = AugmentSpec.jitter(0.9f, 0.9f, 0.9f, 4);
            byte[] expected = ReferenceAugmenterTest.augmentOnHost(batch, spec);
            assertArrayEquals(expected, kernelOnCpu(batch, spec, 256));
            assertArrayEquals(expected, kernelOnCpu(batch, spec, 32));
        } finally {
            batch.free();
        }
    }
}
