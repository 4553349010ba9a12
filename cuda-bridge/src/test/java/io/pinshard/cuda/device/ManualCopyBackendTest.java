package io.pinshard.cuda.device;

import io.pinshard.cuda.ManualCopyBackend;
import java.util.ArrayList;

/**
 * The backend contract on {@link ManualCopyBackend}, whose copy events are reached only when waited for: the ring
 * protocol must then wait for copies before it releases or reuses a slot, as it must on a GPU.
 */
class ManualCopyBackendTest extends AbstractDeviceBackendTest {
    @Override
    protected DeviceBackend openBackend() {
        return new ManualCopyBackend(new ArrayList<>());
    }
}
