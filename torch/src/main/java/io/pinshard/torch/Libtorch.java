package io.pinshard.torch;

import io.pinshard.cuda.runtime.CudaAvailability;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.pytorch.global.torch;

/**
 * Whether libtorch's natives load here, decided once per JVM, and the process-wide libtorch settings (intra-op
 * threads). A failed load is caught once and kept as a one-line reason, so callers and tests can say what is missing
 * instead of dying on an {@link UnsatisfiedLinkError} (after a failed load every later touch of the presets' classes
 * throws {@link NoClassDefFoundError}: nothing else may touch them first).
 *
 * <p>Before loading, the platform's libraries are unpacked into JavaCPP's cache all at once. JavaCPP otherwise
 * unpacks and loads them one by one, and on the very first run {@code libtorch.so} is loaded before
 * {@code libtorch_cpu.so} exists next to it: the dynamic linker then takes any other {@code libtorch_cpu.so} on the
 * system path (Debian's python3-torch installs one in /lib/x86_64-linux-gnu), and two libtorch versions registering
 * the same operators crash the JVM.
 */
public final class Libtorch {
    /** The CUDA build of the natives, for messages (swapped in by the torch module's {@code -Ptorch-gpu} profile). */
    public static final String GPU_ARTIFACT = "org.bytedeco:pytorch:2.10.0-1.5.13:linux-x86_64-gpu";

    /** Probe result: whether libtorch loaded, its CUDA state, or why not. */
    public record Status(boolean available, boolean cuda, String reason, String cudaReason) {
        public String describe() {
            return available ? "libtorch loaded (" + (cuda ? "CUDA available" : "CPU only: " + cudaReason) + ")"
                : "libtorch unavailable: " + reason;
        }
    }

    /** Loads the natives on first use of {@link #status()} (class initialisation runs once, thread-safely). */
    private static final class Probe {
        static final Status STATUS = probe();
    }

    private Libtorch() {
    }

    /** The probe result, computed on first call (loads the natives at most once). */
    public static Status status() {
        return Probe.STATUS;
    }

    public static boolean isAvailable() {
        return status().available();
    }

    /** Whether CUDA tensors can be made: the CUDA build of libtorch and a GPU. */
    public static boolean isCudaAvailable() {
        return status().cuda();
    }

    /** Throws {@link IllegalStateException} with the reason when libtorch cannot be used. */
    public static void require() {
        Status s = status();
        if (!s.available()) {
            throw new IllegalStateException(s.describe());
        }
    }

    /** Throws {@link IllegalStateException} saying what is missing when CUDA tensors cannot be made. */
    public static void requireCuda() {
        Status s = status();
        require();
        if (!s.cuda()) {
            throw new IllegalStateException("libtorch cannot make CUDA tensors here: " + s.cudaReason());
        }
    }

    /**
     * Sets libtorch's intra-op thread count ({@code at::set_num_threads}), process-wide: the threads one tensor
     * operation (convolution, normalisation) may use. The loader's workers are separate threads: on a small
     * machine leave cores to them. {@code OMP_NUM_THREADS} sets the same before start-up.
     */
    public static void setThreads(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("libtorch threads must be >= 1: " + threads);
        }
        require();
        torch.set_num_threads(threads);
    }

    /** libtorch's intra-op thread count. */
    public static int threads() {
        require();
        return torch.get_num_threads();
    }

    private static Status probe() {
        if (Boolean.getBoolean("pinshard.torch.disable")) {
            return new Status(false, false, "disabled by -Dpinshard.torch.disable=true", "libtorch disabled");
        }
        try {
            Loader.cacheResources(torch.class, "/org/bytedeco/pytorch/" + Loader.getPlatform() + "/");
            Loader.load(torch.class);
        } catch (Throwable loadFailure) {
            return new Status(false, false, explain(loadFailure), "libtorch did not load");
        }
        boolean cudaBuild;
        try {
            cudaBuild = torch.cuda_is_available();
            SlotDeleter.INSTANCE.getClass(); // the deleter's native callback, made once with the natives, not mid-run
        } catch (Throwable probeFailure) {
            return new Status(false, false, explain(probeFailure), "libtorch did not load");
        }
        if (cudaBuild) {
            return new Status(true, true, "", "");
        }
        CudaAvailability.Status gpu = CudaAvailability.status();
        String cudaReason = torch.hasCUDA() ? "no GPU (" + gpu.describe() + ")"
            : "this libtorch is the CPU build: CUDA tensors need " + GPU_ARTIFACT + " (mvn -Ptorch-gpu)"
                + (gpu.available() ? "" : ", and no GPU here (" + gpu.describe() + ")");
        return new Status(true, false, "", cudaReason);
    }

    /** One sentence naming the failure (the first line of the deepest message). */
    static String explain(Throwable failure) {
        Throwable deepest = failure;
        while (deepest.getCause() != null) {
            deepest = deepest.getCause();
        }
        String m = deepest.getMessage();
        int nl = m == null ? -1 : m.indexOf('\n');
        return "the libtorch natives (org.bytedeco:pytorch:2.10.0-1.5.13:" + Loader.getPlatform()
            + ") could not be loaded: " + deepest.getClass().getSimpleName()
            + (m == null ? "" : ": " + (nl < 0 ? m : m.substring(0, nl)));
    }
}
