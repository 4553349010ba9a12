package io.pinshard.torch;

import io.pinshard.cuda.runtime.CudaCheck;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.pytorch.cuda.CUDAStream;
import org.bytedeco.pytorch.global.torch_cuda;

/**
 * The CUDA calls of the device path, alone in this class so that its presets ({@code torch_cuda}, whose natives only
 * the CUDA build of libtorch has) load only once {@link Libtorch#isCudaAvailable()} said they can.
 */
final class TorchCudaStreams {
    /** A {@code cudaEvent_t} handle as the presets' type, re-aimed without allocating. */
    private static final class EventHandle extends CUevent_st {
        EventHandle at(long handle) {
            this.address = handle;
            return this;
        }
    }

    private final EventHandle event = new EventHandle();

    /**
     * Makes libtorch's current stream on {@code device} wait (on the GPU, the host does not block) for
     * {@code readyEvent}, so every kernel the trainer enqueues next runs after the batch's copy and augmentation.
     */
    void currentStreamWaitFor(int device, long readyEvent) {
        try (CUDAStream current = torch_cuda.getCurrentCUDAStream((byte) device)) {
            CUstream_st stream = current.stream();
            if (readyEvent != 0) {
                CudaCheck.runtime(cudart.cudaStreamWaitEvent(stream, event.at(readyEvent), 0), "cudaStreamWaitEvent");
            }
        }
    }

    /** libtorch's current stream on {@code device}, as a {@code cudaStream_t}. */
    long currentStream(int device) {
        try (CUDAStream current = torch_cuda.getCurrentCUDAStream((byte) device)) {
            return current.stream().address();
        }
    }
}
