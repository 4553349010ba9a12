package io.pinshard.cuda.device;

/** The backend contract on the host backend: device memory is host memory, work is done when the call returns. */
class HostBackendTest extends AbstractDeviceBackendTest {
    @Override
    protected DeviceBackend openBackend() {
        return new HostBackend();
    }
}
