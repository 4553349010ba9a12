package io.pinshard.cuda.augment;

import io.pinshard.cuda.runtime.CudaAvailability;
import io.pinshard.cuda.runtime.CudaCheck;
import io.pinshard.cuda.runtime.CudaException;
import io.pinshard.memory.DType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.agrona.concurrent.UnsafeBuffer;
import org.bytedeco.cuda.cudart.CUfunc_st;
import org.bytedeco.cuda.cudart.CUmod_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.nvrtc;
import org.bytedeco.cuda.nvrtc._nvrtcProgram;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.javacpp.SizeTPointer;

/**
 * The augmentation kernel ({@code augment.cu}, a resource beside this class), compiled at run time with NVRTC for
 * the device's exact architecture (a CUBIN, so the driver's PTX version does not matter), loaded with
 * {@code cuModuleLoadData} and launched with {@code cuLaunchKernel}. Why run time: the build machine has no CUDA
 * toolkit, and a CUBIN made here would fit only the architectures named at build time. What a user's machine needs:
 * the NVIDIA driver, the CUDA 13 runtime and NVRTC ({@code libcudart.so.13}, {@code libnvrtc.so.13}; a toolkit or the
 * org.bytedeco:cuda-redist artifact has both). Launch arguments live in preallocated native memory: a launch
 * allocates nothing. The CUDA backend owns one (compiled on its first augmentation); {@link ReferenceAugmenter} is
 * its CPU twin and test oracle.
 */
public final class CudaAugmentKernel implements AutoCloseable {
    static final String SOURCE_RESOURCE = "augment.cu";
    static final String FUNCTION = "pinshard_augment";
    static final int THREADS = 512;
    private static final int ARGS = 12;

    private final CUmod_st module = new CUmod_st();
    private final CUfunc_st function = new CUfunc_st();
    private final BytePointer argValues = new BytePointer(ARGS * 8L);
    private final PointerPointer<?> argPointers = new PointerPointer<>(ARGS);
    private final UnsafeBuffer values;
    private boolean unloaded;

    /** Compiles the kernel for compute capability {@code computeMajor.computeMinor} and loads it on the current context. */
    public CudaAugmentKernel(int computeMajor, int computeMinor) {
        byte[] image = compile(readSource(), computeMajor * 10 + computeMinor);
        try (BytePointer imagePointer = new BytePointer(image.length + 1L)) {
            imagePointer.put(image).put(image.length, (byte) 0);
            CudaCheck.driver(cudart.cuModuleLoadData(module, imagePointer), "cuModuleLoadData(" + SOURCE_RESOURCE + ")");
        }
        CudaCheck.driver(cudart.cuModuleGetFunction(function, module, FUNCTION), "cuModuleGetFunction(" + FUNCTION + ")");
        values = new UnsafeBuffer(argValues.address(), ARGS * 8);
        UnsafeBuffer table = new UnsafeBuffer(argPointers.address(), ARGS * 8);
        for (int i = 0; i < ARGS; i++) {
            table.putLong(i * 8, argValues.address() + i * 8L);
        }
    }

    /** Enqueues the kernel for {@code batch} images on {@code stream}. */
    public void launch(CUstream_st stream, long source, long params, long target, int batch, int height, int width,
                AugmentSpec spec) {
        if (unloaded) {
            throw new IllegalStateException("augmentation kernel is unloaded");
        }
        values.putLong(0, source);
        values.putLong(8, params);
        values.putLong(16, target);
        values.putInt(24, height);
        values.putInt(32, width);
        values.putInt(40, outputCode(spec.output()));
        values.putFloat(48, spec.mean(0));
        values.putFloat(56, spec.mean(1));
        values.putFloat(64, spec.mean(2));
        values.putFloat(72, spec.invStd(0));
        values.putFloat(80, spec.invStd(1));
        values.putFloat(88, spec.invStd(2));
        CudaCheck.driver(cudart.cuLaunchKernel(function, batch, 1, 1, THREADS, 1, 1, 0, stream, argPointers,
            (PointerPointer<?>) null), "cuLaunchKernel(" + FUNCTION + ")");
    }

    static int outputCode(DType type) {
        switch (type) {
            case FLOAT32:
                return 0;
            case FLOAT16:
                return 1;
            case BFLOAT16:
                return 2;
            default:
                throw new IllegalArgumentException("no kernel output for " + type);
        }
    }

    static String readSource() {
        try (InputStream in = CudaAugmentKernel.class.getResourceAsStream(SOURCE_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("kernel source " + SOURCE_RESOURCE + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read kernel source " + SOURCE_RESOURCE, e);
        }
    }

    /**
     * Compiles {@code source} to a CUBIN for {@code sm_<arch>}, or, when this NVRTC does not know that
     * architecture (a newer GPU), to PTX for the newest one it knows (the driver finishes the job).
     */
    static byte[] compile(String source, int arch) {
        try {
            Loader.load(nvrtc.class);
        } catch (Throwable t) {
            throw new IllegalStateException("NVRTC is unavailable, so the augmentation kernel cannot be compiled: "
                + CudaAvailability.explainLoadFailure(t));
        }
        int[] count = new int[1];
        CudaCheck.nvrtc(nvrtc.nvrtcGetNumSupportedArchs(count), "nvrtcGetNumSupportedArchs");
        int[] archs = new int[count[0]];
        CudaCheck.nvrtc(nvrtc.nvrtcGetSupportedArchs(archs), "nvrtcGetSupportedArchs");
        boolean supported = false;
        int newest = 0;
        for (int a : archs) {
            supported |= a == arch;
            newest = Math.max(newest, a);
        }
        String target = supported ? "--gpu-architecture=sm_" + arch : "--gpu-architecture=compute_" + newest;
        _nvrtcProgram program = new _nvrtcProgram();
        CudaCheck.nvrtc(nvrtc.nvrtcCreateProgram(program, new BytePointer(source), new BytePointer(SOURCE_RESOURCE), 0,
            (PointerPointer<?>) null, (PointerPointer<?>) null), "nvrtcCreateProgram");
        try {
            PointerPointer<?> options = new PointerPointer<>(target, "-fmad=false", "--std=c++17");
            int status = nvrtc.nvrtcCompileProgram(program, 3, options);
            if (status != 0) {
                throw new CudaException("nvrtcCompileProgram(" + SOURCE_RESOURCE + ", " + target + ")", status,
                    CudaCheck.describeNvrtc(status) + "\n" + log(program));
            }
            SizeTPointer size = new SizeTPointer(1);
            if (supported) {
                CudaCheck.nvrtc(nvrtc.nvrtcGetCUBINSize(program, size), "nvrtcGetCUBINSize");
                byte[] cubin = new byte[(int) size.get()];
                CudaCheck.nvrtc(nvrtc.nvrtcGetCUBIN(program, cubin), "nvrtcGetCUBIN");
                return cubin;
            }
            CudaCheck.nvrtc(nvrtc.nvrtcGetPTXSize(program, size), "nvrtcGetPTXSize");
            byte[] ptx = new byte[(int) size.get()];
            CudaCheck.nvrtc(nvrtc.nvrtcGetPTX(program, ptx), "nvrtcGetPTX");
            return ptx;
        } finally {
            nvrtc.nvrtcDestroyProgram(program);
        }
    }

    private static String log(_nvrtcProgram program) {
        SizeTPointer size = new SizeTPointer(1);
        if (nvrtc.nvrtcGetProgramLogSize(program, size) != 0 || size.get() <= 1) {
            return "(no compiler log)";
        }
        byte[] text = new byte[(int) size.get()];
        nvrtc.nvrtcGetProgramLog(program, text);
        return new String(text, 0, text.length - 1, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        if (!unloaded) {
            unloaded = true;
            CudaCheck.driver(cudart.cuModuleUnload(module), "cuModuleUnload");
            argValues.close();
            argPointers.close();
        }
    }
}
