package io.pinshard.cuda.monitor;

import io.pinshard.cuda.runtime.CudaAvailability;
import io.pinshard.datawait.DataWaitMonitor;
import java.util.Locale;
import org.bytedeco.cuda.global.nvml;
import org.bytedeco.cuda.nvml.nvmlDevice_st;
import org.bytedeco.cuda.nvml.nvmlUtilization_t;
import org.bytedeco.javacpp.Loader;

/**
 * GPU utilisation sampled through NVML (JavaCPP's CUDA presets, {@code org.bytedeco.cuda.nvml}), for the data-wait
 * warning: a trainer that waits for data while the GPU idles is input-bound, one that waits with the GPU busy is
 * not. NVML is tried only where {@link CudaAvailability} found a device; elsewhere, or when NVML cannot load or
 * initialise, {@link #describe()} says why instead of a figure. One sample is one NVML call into preallocated
 * memory, taken only when asked (the warning asks once).
 */
public final class GpuUtilization implements AutoCloseable {
    private static volatile String unavailable;
    private static volatile boolean probed;

    private final int device;
    private final nvmlDevice_st handle;
    private final nvmlUtilization_t rates;
    private boolean closed;

    private GpuUtilization(int device, nvmlDevice_st handle) {
        this.device = device;
        this.handle = handle;
        this.rates = new nvmlUtilization_t();
    }

    /** Why NVML cannot be used here, or null when it can (loads and initialises NVML at most once per JVM). */
    public static String unavailableReason() {
        if (!probed) {
            synchronized (GpuUtilization.class) {
                if (!probed) {
                    unavailable = probe();
                    probed = true;
                }
            }
        }
        return unavailable;
    }

    private static String probe() {
        CudaAvailability.Status cuda = CudaAvailability.status();
        if (!cuda.available()) {
            return "no GPU utilisation: " + cuda.describe();
        }
        try {
            Loader.load(nvml.class);
            int rc = nvml.nvmlInit_v2();
            return rc == nvml.NVML_SUCCESS ? null : "no GPU utilisation: nvmlInit failed (" + error(rc) + ")";
        } catch (Throwable failure) { // UnsatisfiedLinkError without libnvidia-ml.so.1
            return "no GPU utilisation: NVML could not be loaded (" + failure.getClass().getSimpleName() + ": "
                + failure.getMessage() + ")";
        }
    }

    /**
     * Opens device {@code device} (NVML's index, which is CUDA's without {@code CUDA_VISIBLE_DEVICES}).
     *
     * @throws IllegalStateException with the reason when NVML or the device is unavailable
     */
    public static GpuUtilization open(int device) {
        String reason = unavailableReason();
        if (reason != null) {
            throw new IllegalStateException(reason);
        }
        nvmlDevice_st handle = new nvmlDevice_st();
        int rc = nvml.nvmlDeviceGetHandleByIndex_v2(device, handle);
        if (rc != nvml.NVML_SUCCESS) {
            throw new IllegalStateException("no GPU utilisation for device " + device + ": " + error(rc));
        }
        return new GpuUtilization(device, handle);
    }

    /**
     * Adds GPU {@code device}'s utilisation to {@code monitor}'s warning (and its busy percent to the step log's
     * {@code gpu_util}), or the reason there is none; returns the
     * sampler to close with the trainer (null when none was opened).
     */
    public static GpuUtilization attach(DataWaitMonitor monitor, int device) {
        GpuUtilization sampler;
        try {
            sampler = open(device);
        } catch (IllegalStateException unavailableHere) {
            String reason = unavailableHere.getMessage();
            monitor.warningContext(() -> reason);
            return null;
        }
        monitor.warningContext(sampler::describe);
        monitor.gpuPercent(sampler::gpuPercent);
        return sampler;
    }

    /** GPU busy percent over NVML's last sample period (1/6 s to 1 s by GPU), or -1 when the call failed. */
    public synchronized int gpuPercent() {
        if (closed) {
            throw new IllegalStateException("GPU utilisation sampler for device " + device + " is closed");
        }
        return nvml.nvmlDeviceGetUtilizationRates(handle, rates) == nvml.NVML_SUCCESS ? rates.gpu() : -1;
    }

    /** "GPU 0 utilisation 37 % (NVML)", for the data-wait warning. */
    public synchronized String describe() {
        if (closed) {
            return "GPU " + device + " utilisation not sampled (sampler closed)";
        }
        int rc = nvml.nvmlDeviceGetUtilizationRates(handle, rates);
        return rc == nvml.NVML_SUCCESS
            ? String.format(Locale.ROOT, "GPU %d utilisation %d %%, memory controller %d %% (NVML)", device, rates.gpu(),
                rates.memory())
            : "GPU " + device + " utilisation unknown (" + error(rc) + ")";
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            rates.close();
            handle.close();
        }
    }

    private static String error(int rc) {
        try {
            return nvml.nvmlErrorString(rc).getString() + ", code " + rc;
        } catch (Throwable t) {
            return "NVML code " + rc;
        }
    }
}
