package io.pinshard.cuda.runtime;

import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.Loader;

/**
 * Whether CUDA can be used here, decided once per JVM. Loading the JavaCPP CUDA natives on a machine without
 * the NVIDIA driver ({@code libcuda.so.1}), without a CUDA 13 runtime ({@code libcudart.so.13}) or without a
 * device fails; this class catches that failure once and keeps a one-line reason, so the host backend stays usable
 * and the user sees one clear message instead of an {@link UnsatisfiedLinkError} stack trace (after a failed load
 * every later touch of the JavaCPP classes throws {@link NoClassDefFoundError}: nothing else may touch them first).
 */
public final class CudaAvailability {
    /** Probe result: either a device count with versions, or the reason CUDA is unusable. */
    public record Status(boolean available, int deviceCount, int driverVersion, int runtimeVersion, String reason) {
        /** One line for logs and CLI output. */
        public String describe() {
            return available
                ? "CUDA available: " + deviceCount + " device(s), driver " + version(driverVersion)
                    + ", runtime " + version(runtimeVersion)
                : "CUDA unavailable: " + reason;
        }

        private static String version(int v) {
            return (v / 1000) + "." + (v % 1000) / 10;
        }
    }

    private static volatile Status status;

    private CudaAvailability() {
    }

    /** The probe result, computed on first call (loads the natives at most once). */
    public static Status status() {
        Status s = status;
        if (s == null) {
            synchronized (CudaAvailability.class) {
                s = status;
                if (s == null) {
                    s = probe();
                    status = s;
                }
            }
        }
        return s;
    }

    public static boolean isAvailable() {
        return status().available();
    }

    /** Throws {@link IllegalStateException} with the reason when CUDA cannot be used. */
    public static void require() {
        Status s = status();
        if (!s.available()) {
            throw new IllegalStateException(s.describe() + ". Use the host backend (--device host).");
        }
    }

    private static Status probe() {
        if (Boolean.getBoolean("pinshard.cuda.disable")) {
            return new Status(false, 0, 0, 0, "disabled by -Dpinshard.cuda.disable=true");
        }
        try {
            Loader.load(cudart.class);
        } catch (Throwable loadFailure) {
            return new Status(false, 0, 0, 0, explainLoadFailure(loadFailure));
        }
        try {
            int[] value = new int[1];
            int driver = cudart.cudaDriverGetVersion(value) == 0 ? value[0] : 0;
            int runtime = cudart.cudaRuntimeGetVersion(value) == 0 ? value[0] : 0;
            int rc = cudart.cudaGetDeviceCount(value);
            if (rc != 0) {
                return new Status(false, 0, driver, runtime,
                    "cudaGetDeviceCount failed (" + CudaCheck.describeRuntime(rc) + ")"
                        + (driver > 0 && runtime > driver ? ": the driver supports CUDA " + Status.version(driver)
                            + " but the runtime is " + Status.version(runtime) + "; update the NVIDIA driver" : ""));
            }
            if (value[0] == 0) {
                return new Status(false, 0, driver, runtime, "no CUDA device found");
            }
            return new Status(true, value[0], driver, runtime, "");
        } catch (Throwable probeFailure) {
            return new Status(false, 0, 0, 0, explainLoadFailure(probeFailure));
        }
    }

    /**
     * Condenses a native-load failure chain into one sentence naming the missing library and what supplies it.
     * nvJPEG's probe and the kernel's NVRTC load say theirs with it too; tests check the wording for failures this
     * machine cannot produce.
     */
    public static String explainLoadFailure(Throwable failure) {
        String detail = null;
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && m.contains("cannot open shared object file")) {
                detail = m;
            }
        }
        if (detail == null) {
            String m = failure.getMessage();
            return "the CUDA natives could not be loaded (" + failure.getClass().getSimpleName()
                + (m == null ? "" : ": " + firstLine(m)) + ")";
        }
        String missing = missingLibrary(detail);
        if (missing.startsWith("libcuda.so")) {
            return "the NVIDIA driver library " + missing + " was not found (no NVIDIA driver installed on this machine)";
        }
        if (missing.startsWith("libcudart.so") || missing.startsWith("libnvrtc")) {
            return "the CUDA runtime library " + missing + " was not found: install a CUDA 13 runtime (or add it to"
                + " LD_LIBRARY_PATH, e.g. /usr/local/cuda/lib64), or add the org.bytedeco:cuda-redist artifact";
        }
        if (missing.startsWith("libnvjpeg")) {
            return "the nvJPEG library " + missing + " was not found: install CUDA 13's nvJPEG (the toolkit's"
                + " lib64, the libnvjpeg-13 package, or the nvidia-nvjpeg wheel PyTorch installs) or add its folder to"
                + " LD_LIBRARY_PATH";
        }
        return "a native library the CUDA bindings need was not found: " + missing;
    }

    private static String missingLibrary(String message) {
        int end = message.indexOf(": cannot open shared object file");
        int start = message.lastIndexOf(": ", end - 1);
        return message.substring(start < 0 ? 0 : start + 2, end).trim();
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
