package io.pinshard.cuda;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.cuda.device.CudaBackend;
import io.pinshard.cuda.runtime.CudaAvailability;
import java.nio.ByteBuffer;
import org.agrona.BufferUtil;

/** Shared by the CUDA test classes: skip with the probe's reason where no device is usable. */
public final class CudaTestSupport {
    private CudaTestSupport() {
    }

    public static void assumeCuda() {
        CudaAvailability.Status status = CudaAvailability.status();
        assumeTrue(status.available(), () -> "skipped, needs a CUDA device: " + status.describe());
    }

    /** Device bytes copied back to the host. */
    public static byte[] readBack(CudaBackend backend, long deviceAddress, int bytes) {
        ByteBuffer host = ByteBuffer.allocateDirect(bytes);
        backend.copyToHost(BufferUtil.address(host), deviceAddress, bytes);
        byte[] out = new byte[bytes];
        host.get(out);
        return out;
    }
}
