package io.pinshard.cuda.runtime;

import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.nvrtc;
import org.bytedeco.javacpp.BytePointer;

/**
 * Turns the int status codes of the CUDA runtime, the driver API and NVRTC into exceptions that name the call.
 * Every native call in this module goes through one of these (nvJPEG's through its package's NvJpegCheck).
 */
public final class CudaCheck {
    private CudaCheck() {
    }

    /** Checks a CUDA runtime status ({@code cudaSuccess == 0}). */
    public static void runtime(int status, String call) {
        if (status != 0) {
            throw new CudaException(call, status, describeRuntime(status));
        }
    }

    /** Checks a driver-API status ({@code CUDA_SUCCESS == 0}). */
    public static void driver(int status, String call) {
        if (status != 0) {
            throw new CudaException(call, status, describeDriver(status));
        }
    }

    /** Checks an NVRTC status ({@code NVRTC_SUCCESS == 0}). */
    public static void nvrtc(int status, String call) {
        if (status != 0) {
            throw new CudaException(call, status, describeNvrtc(status));
        }
    }

    // The descriptions come from the natives; if those are unusable the bare number still names the failure.
    static String describeRuntime(int status) {
        try {
            return cudart.cudaGetErrorName(status).getString() + ": " + cudart.cudaGetErrorString(status).getString();
        } catch (Throwable unavailable) {
            return "";
        }
    }

    static String describeDriver(int status) {
        try (BytePointer name = new BytePointer(); BytePointer text = new BytePointer()) {
            String n = cudart.cuGetErrorName(status, name) == 0 && !name.isNull() ? name.getString() : "";
            String t = cudart.cuGetErrorString(status, text) == 0 && !text.isNull() ? text.getString() : "";
            return n.isEmpty() && t.isEmpty() ? "" : n + ": " + t;
        } catch (Throwable unavailable) {
            return "";
        }
    }

    /** NVRTC's text for a status, or "" when NVRTC is unusable (the kernel's compile failure adds its log). */
    public static String describeNvrtc(int status) {
        try {
            return nvrtc.nvrtcGetErrorString(status).getString();
        } catch (Throwable unavailable) {
            return "";
        }
    }
}
