package io.pinshard.cuda;

import org.agrona.concurrent.UnsafeBuffer;

/** The backend contract on the host backend: device memory is host memory, work is done when the call returns. */
class HostBackendTest extends AbstractDeviceBackendTest {
    @Override
    protected DeviceBackend openBackend() {
        return new HostBackend();
    }

    @Override
    protected DeviceType expectedDeviceType() {
        return DeviceType.CPU;
    }

    @Override
    protected boolean pageLockedHostSlots() {
        return false;
    }

    @Override
    protected byte[] readBack(long deviceAddress, int bytes) {
        byte[] out = new byte[bytes];
        new UnsafeBuffer(deviceAddress, bytes).getBytes(0, out);
        return out;
    }
}
