package io.pinshard.cuda;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import org.agrona.BufferUtil;

/** Shared by the CUDA test classes: skip with the probe's reason where no device is usable. */
final class CudaTestSupport {
    private CudaTestSupport() {
    }

    static void assumeCuda() {
        CudaAvailability.Status status = CudaAvailability.status();
        assumeTrue(status.available(), () -> "skipped, needs a CUDA device: " + status.describe());
    }

    /** Device bytes copied back to the host. */
    static byte[] readBack(CudaBackend backend, long deviceAddress, int bytes) {
        ByteBuffer host = ByteBuffer.allocateDirect(bytes);
        backend.copyToHost(BufferUtil.address(host), deviceAddress, bytes);
        byte[] out = new byte[bytes];
        host.get(out);
        return out;
    }
}
