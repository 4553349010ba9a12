package io.pinshard.cuda.device;

import io.pinshard.cuda.CudaTestSupport;

/** The backend contract on a real GPU (device 0); skips with the probe's reason where no device is usable. */
class CudaBackendTest extends AbstractDeviceBackendTest {
    @Override
    protected DeviceBackend openBackend() {
        CudaTestSupport.assumeCuda();
        return CudaBackend.open(0);
    }

    @Override
    protected DeviceType expectedDeviceType() {
        return DeviceType.CUDA;
    }

    @Override
    protected boolean pageLockedHostSlots() {
        return true;
    }

    @Override
    protected byte[] readBack(long deviceAddress, int bytes) {
        return CudaTestSupport.readBack((CudaBackend) backend, deviceAddress, bytes);
    }

    @Override
    protected float augmentTolerance() {
        return 1e-3f; // the kernel's float32 arithmetic differs from the CPU reference in the last bits
    }
}
