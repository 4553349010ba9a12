package io.pinshard.cuda.nvjpeg;

import io.pinshard.cuda.runtime.CudaAvailability;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.nvjpeg;
import org.bytedeco.javacpp.Loader;

/**
 * Whether nvJPEG can decode here, decided once per JVM after {@link CudaAvailability}: the CUDA natives must load
 * and see a device, then JavaCPP's nvJPEG binding must load {@code libnvjpeg.so.13} and report its version. As for
 * CUDA, the first failure is caught once and kept as a one-line reason, so a machine without nvJPEG keeps the CPU
 * decoders and says why.
 */
public final class NvJpegAvailability {
    /** Probe result: the library's version, or the reason nvJPEG is unusable. */
    public record Status(boolean available, int major, int minor, int patch, String reason) {
        public String describe() {
            return available ? "nvJPEG " + major + "." + minor + "." + patch + " available" : "nvJPEG unavailable: " + reason;
        }
    }

    /** Probed on first use of {@link #status} (class initialisation runs once, thread-safely). */
    private static final class Probe {
        static final Status STATUS = probe();
    }

    private NvJpegAvailability() {
    }

    public static Status status() {
        return Probe.STATUS;
    }

    /** Throws {@link IllegalStateException} with the reason when nvJPEG cannot be used. */
    public static void require() {
        if (!status().available()) {
            throw new IllegalStateException(status().describe());
        }
    }

    private static Status probe() {
        CudaAvailability.Status cuda = CudaAvailability.status();
        if (!cuda.available()) {
            return new Status(false, 0, 0, 0, cuda.describe());
        }
        try {
            Loader.load(nvjpeg.class);
        } catch (Throwable loadFailure) {
            return new Status(false, 0, 0, 0, CudaAvailability.explainLoadFailure(loadFailure));
        }
        try {
            int[] value = new int[1];
            NvJpegCheck.nvjpeg(nvjpeg.nvjpegGetProperty(cudart.MAJOR_VERSION, value), "nvjpegGetProperty(MAJOR_VERSION)");
            int major = value[0];
            NvJpegCheck.nvjpeg(nvjpeg.nvjpegGetProperty(cudart.MINOR_VERSION, value), "nvjpegGetProperty(MINOR_VERSION)");
            int minor = value[0];
            NvJpegCheck.nvjpeg(nvjpeg.nvjpegGetProperty(cudart.PATCH_LEVEL, value), "nvjpegGetProperty(PATCH_LEVEL)");
            return new Status(true, major, minor, value[0], "");
        } catch (Throwable probeFailure) {
            return new Status(false, 0, 0, 0, CudaAvailability.explainLoadFailure(probeFailure));
        }
    }
}
