package io.pinshard.cuda;

import java.util.ArrayList;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The backend contract on {@link ManualCopyBackend}, whose copy events are reached only when waited for: the ring
 * protocol must then wait for copies before it releases or reuses a slot, as it must on a GPU.
 */
class ManualCopyBackendTest extends AbstractDeviceBackendTest {
    @Override
    protected DeviceBackend openBackend() {
        return new ManualCopyBackend(new ArrayList<>());
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
