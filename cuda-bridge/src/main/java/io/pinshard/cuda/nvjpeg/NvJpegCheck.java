package io.pinshard.cuda.nvjpeg;

import io.pinshard.cuda.runtime.CudaException;

/** Turns nvJPEG's {@code nvjpegStatus_t} codes into exceptions that name the call, as CudaCheck does for CUDA's. */
final class NvJpegCheck {
    private NvJpegCheck() {
    }

    /** Checks an nvJPEG status ({@code NVJPEG_STATUS_SUCCESS == 0}). */
    static void nvjpeg(int status, String call) {
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
}
