package io.pinshard.cuda.device;

import io.pinshard.cuda.runtime.CudaCheck;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.global.cudart;

/** A CUDA event (timing disabled unless asked for: cheaper to record and query). */
final class CudaEvent implements DeviceEvent {
    private final CUevent_st event = new CUevent_st();
    private boolean destroyed;

    CudaEvent(boolean timing) {
        CudaCheck.runtime(cudart.cudaEventCreateWithFlags(event, timing ? cudart.cudaEventDefault
            : cudart.cudaEventDisableTiming), "cudaEventCreateWithFlags");
    }

    CUevent_st native_() {
        return event;
    }

    @Override
    public boolean isComplete() {
        int status = cudart.cudaEventQuery(event);
        if (status == cudart.cudaErrorNotReady) {
            return false;
        }
        CudaCheck.runtime(status, "cudaEventQuery");
        return true;
    }

    @Override
    public void synchronize() {
        CudaCheck.runtime(cudart.cudaEventSynchronize(event), "cudaEventSynchronize");
    }

    @Override
    public long handle() {
        return event.address();
    }

    @Override
    public void close() {
        if (!destroyed) {
            destroyed = true;
            CudaCheck.runtime(cudart.cudaEventDestroy(event), "cudaEventDestroy");
        }
    }
}
