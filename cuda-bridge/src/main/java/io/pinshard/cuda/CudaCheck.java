package io.pinshard.cuda;

import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.nvrtc;
import org.bytedeco.javacpp.BytePointer;

/**
 * Turns the int status codes of the CUDA runtime, the driver API and NVRTC into exceptions that name the call.
 * Every native call in this module goes through one of these.
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

    /** Checks an nvJPEG status ({@code NVJPEG_STATUS_SUCCESS == 0}). */
    public static void nvjpeg(int status, String call) {
        if (status != 0) {
            throw new CudaException(call, status, describeNvjpeg(status));
        }
    }

    /**
     * nvJPEG has no error-string function: the names and meanings of {@code nvjpegStatus_t} from nvjpeg.h (CUDA 13),
     * kept here so a failed decode says what went wrong without the library.
     */
    static String describeNvjpeg(int status) {
        return switch (status) {
            case 1 -> "NVJPEG_STATUS_NOT_INITIALIZED: the library handle or state was not created";
            case 2 -> "NVJPEG_STATUS_INVALID_PARAMETER: a wrong argument (a null pointer, a size, a mode)";
            case 3 -> "NVJPEG_STATUS_BAD_JPEG: the bitstream is corrupt";
            case 4 -> "NVJPEG_STATUS_JPEG_NOT_SUPPORTED: a JPEG feature this backend does not decode";
            case 5 -> "NVJPEG_STATUS_ALLOCATOR_FAILURE: host or device memory could not be allocated";
            case 6 -> "NVJPEG_STATUS_EXECUTION_FAILED: a CUDA call inside nvJPEG failed";
            case 7 -> "NVJPEG_STATUS_ARCH_MISMATCH: this GPU lacks what the backend needs";
            case 8 -> "NVJPEG_STATUS_INTERNAL_ERROR: an internal nvJPEG error";
            case 9 -> "NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED: this backend does not implement the call";
            case 10 -> "NVJPEG_STATUS_INCOMPLETE_BITSTREAM: the bitstream ends before the image does";
            default -> "an nvjpegStatus_t this build does not know";
        };
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

    static String describeNvrtc(int status) {
        try {
            return nvrtc.nvrtcGetErrorString(status).getString();
        } catch (Throwable unavailable) {
            return "";
        }
    }
}
