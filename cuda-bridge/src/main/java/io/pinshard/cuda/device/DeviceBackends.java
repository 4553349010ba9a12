package io.pinshard.cuda.device;

import io.pinshard.cuda.runtime.CudaAvailability;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens the backend a user asked for: {@code host}, {@code cuda} or {@code auto} (cuda when a device is present). */
public final class DeviceBackends {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceBackends.class);

    private DeviceBackends() {
    }

    /**
     * Opens {@code choice} on device 0.
     *
     * @throws IllegalArgumentException for an unknown choice
     * @throws IllegalStateException    for {@code cuda} when CUDA is unavailable, with the reason
     */
    public static DeviceBackend open(String choice) {
        return open(choice, 0);
    }

    public static DeviceBackend open(String choice, int device) {
        String c = choice == null ? "" : choice.trim().toLowerCase(Locale.ROOT);
        switch (c) {
            case "host":
                return new HostBackend();
            case "cuda":
                return CudaBackend.open(device);
            case "auto":
                CudaAvailability.Status status = CudaAvailability.status();
                if (status.available()) {
                    return CudaBackend.open(device);
                }
                LOG.info("{}; using the host backend", status.describe());
                return new HostBackend();
            default:
                throw new IllegalArgumentException("unknown device '" + choice + "': use host, cuda or auto");
        }
    }
}
