package io.pinshard.cuda.monitor;

import io.pinshard.datawait.DataWaitContext;

/**
 * cuda-bridge's {@link DataWaitContext} (registered in {@code META-INF/services}): every data-wait warning, the
 * loader's own included, says GPU {@value #DEVICE}'s utilisation through NVML, or why there is no figure ("no GPU
 * utilisation: no CUDA device ..."), and the step log's {@code gpu_util} is its busy percent. Nothing is probed
 * until a warning fires or a step log line is written; the sampler then stays open for the JVM. A trainer that
 * feeds another device calls {@link GpuUtilization#attach} with it, which replaces this.
 */
public final class GpuUtilizationContext implements DataWaitContext {
    /** The device sampled: CUDA's first visible one, the one a single-GPU trainer uses. */
    static final int DEVICE = 0;

    private GpuUtilization sampler;

    /** For {@link java.util.ServiceLoader}; does nothing (no CUDA or NVML load before a warning). */
    public GpuUtilizationContext() {
    }

    @Override
    public synchronized String describe() {
        String unavailable = openSampler();
        return sampler == null ? unavailable : sampler.describe();
    }

    /**
     * GPU {@value #DEVICE}'s busy percent through NVML for the step log's {@code gpu_util}, -1 without a GPU or NVML
     * (the log then says null). The first call probes CUDA and NVML once per JVM; a monitor asks at most once a
     * second, and only while it writes a step log.
     */
    @Override
    public synchronized int gpuPercent() {
        openSampler();
        return sampler == null ? -1 : sampler.gpuPercent();
    }

    /** Opens {@link #sampler} on first use; when it stays null, returns why (the reason or the failure's message). */
    private String openSampler() {
        if (sampler == null) {
            String reason = GpuUtilization.unavailableReason();
            if (reason != null) {
                return reason;
            }
            try {
                sampler = GpuUtilization.open(DEVICE);
            } catch (IllegalStateException unavailable) {
                return unavailable.getMessage();
            }
        }
        return null;
    }
}
