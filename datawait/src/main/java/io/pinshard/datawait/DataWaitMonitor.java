package io.pinshard.datawait;

import java.util.Locale;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import jdk.jfr.FlightRecorder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data-wait guard: per training step, how long the trainer waited for data and how long the whole
 * step took (from the end of one wait to the end of the next). When waiting exceeds a fraction of step
 * time over a window of steps it logs one SLF4J warning with the figures and a hint, once per monitor.
 *
 * <p>The loader feeds one for its host batches; a stage after it (the cuda-bridge waiting for a device
 * batch) makes its own with its own hint and brackets its wait with {@link #waitStarted()} /
 * {@link #waitEnded(long)}. Single-threaded writer (the trainer's thread); readers on other threads see
 * recent figures. Allocation-free except for the one warning, and for one {@link DataWaitEvent} per step while a
 * JFR recording enables it ({@code io.pinshard.DataWait}).
 *
 * <p>The warning carries the {@link DataWaitContext}s registered on the class path (cuda-bridge's GPU utilisation)
 * unless {@link #warningContext(Supplier)} sets another.
 *
 * <p>With a {@link #stepLog(StepLogWriter)} every step (from the second wait on) is also a line of the step log,
 * the schema the Python path writes, with the GPU utilisation a {@link #gpuPercent(IntSupplier)} gives (sampled at
 * most once a second; null without one).
 */
public final class DataWaitMonitor {
    private static final Logger LOG = LoggerFactory.getLogger(DataWaitMonitor.class);

    private final String what;
    private final String hint;
    private final double warnFraction;
    private final int windowSteps;
    private final int warmupSteps;
    private long lastWaitEnd = -1;
    private long windowWait;
    private long windowStep;
    private long windowImages;
    private int windowCount;
    private volatile long totalWait;
    private volatile long totalStep;
    private volatile long steps;
    private volatile long lastWaitNanos;
    private volatile boolean warned;
    private volatile Supplier<String> warningContext = Discovered.CONTEXT;
    private volatile String warning;
    private volatile StepLogWriter stepLog;
    private volatile IntSupplier gpuPercent = Discovered.GPU_PERCENT;
    private volatile String dataset = "DATASET";
    private long gpuSampledNanos;
    private int gpuSample = -1;

    /**
     * @param what         what is waited for, for the warning ("host batches from the loader")
     * @param hint         what to try when it fires
     * @param warnFraction wait / step time above which to warn (0.10)
     * @param windowSteps  steps per window
     * @param warmupSteps  first steps left out (start-up fills the pipeline)
     */
    public DataWaitMonitor(String what, String hint, double warnFraction, int windowSteps, int warmupSteps) {
        if (warnFraction <= 0 || windowSteps < 1 || warmupSteps < 0) {
            throw new IllegalArgumentException("need fraction > 0, window >= 1, warm-up >= 0");
        }
        this.what = what;
        this.hint = hint;
        this.warnFraction = warnFraction;
        this.windowSteps = windowSteps;
        this.warmupSteps = warmupSteps;
    }

    /** Call before blocking for data; pass the result to {@link #waitEnded(long)}. */
    public long waitStarted() {
        return System.nanoTime();
    }

    /** Call when the data arrived. */
    public void waitEnded(long startedNanos) {
        long now = System.nanoTime();
        record(now - startedNanos, now);
    }

    /** Call when the data arrived: {@code images} samples of {@code epoch} (for the step log). */
    public void waitEnded(long startedNanos, int epoch, int images) {
        long now = System.nanoTime();
        record(now - startedNanos, now, epoch, images);
    }

    /** Records one step whose data wait was {@code waitNanos} and which ended its wait at {@code nowNanos}. */
    public void record(long waitNanos, long nowNanos) {
        record(waitNanos, nowNanos, 0, 0);
    }

    /** {@link #record(long, long)} of a batch of {@code images} samples of {@code epoch}. */
    public void record(long waitNanos, long nowNanos, int epoch, int images) {
        lastWaitNanos = waitNanos;
        long previous = lastWaitEnd;
        lastWaitEnd = nowNanos;
        long step = previous < 0 ? 0 : Math.max(nowNanos - previous, waitNanos);
        // isInitialized is a static flag: no event object at all unless this JVM runs JFR and enables the event.
        if (FlightRecorder.isInitialized() && DataWaitEvent.enabled()) {
            commitEvent(waitNanos, step);
        }
        if (previous < 0) {
            return; // the first wait has no step before it
        }
        long counted = steps + 1;
        steps = counted;
        StepLogWriter log = stepLog;
        if (log != null) {
            log.write(counted, epoch, System.currentTimeMillis(), waitNanos, step, gpuPercent(nowNanos), images,
                counted <= warmupSteps);
        }
        if (counted <= warmupSteps) {
            return;
        }
        totalWait += waitNanos;
        totalStep += step;
        windowWait += waitNanos;
        windowStep += step;
        windowImages += images;
        if (++windowCount >= windowSteps) {
            if (!warned && windowStep > 0 && windowWait > warnFraction * windowStep) {
                // The words and the next action of the Python guard (_steplog.py), so one grep finds both.
                long compute = windowStep - windowWait;
                String rate = windowImages > 0 && compute > 0
                    ? String.format(Locale.ROOT, "%.0f", windowImages * 1e9 / compute) : "IMAGES_PER_S";
                String text = String.format(Locale.ROOT, "pinshard data-wait: training waited %.1f%% of step time for"
                        + " %s over the last %d steps (mean wait %.2f ms per step of %.2f ms; threshold %.0f%%)%s. %s"
                        + "The GPU idles: find the workers that keep it fed with: pinshard bench %s --sweep"
                        + " --gpu-rate %s",
                    100.0 * windowWait / windowStep, what, windowCount, windowWait / 1e6 / windowCount,
                    windowStep / 1e6 / windowCount, 100 * warnFraction, context(), hint.isEmpty() ? "" : hint + " ",
                    dataset, rate);
                warning = text;
                warned = true;
                LOG.warn(text);
            }
            windowWait = 0;
            windowStep = 0;
            windowImages = 0;
            windowCount = 0;
        }
    }

    private void commitEvent(long waitNanos, long stepNanos) {
        DataWaitEvent event = new DataWaitEvent();
        if (event.shouldCommit()) {
            event.what = what;
            event.wait = waitNanos;
            event.step = stepNanos;
            event.stepNumber = steps;
            event.commit();
        }
    }

    private int gpuPercent(long nowNanos) {
        IntSupplier gpu = gpuPercent;
        if (gpu == null) {
            return -1;
        }
        if (gpuSampledNanos == 0 || nowNanos - gpuSampledNanos >= 1_000_000_000L) {
            gpuSampledNanos = nowNanos;
            try {
                gpuSample = gpu.getAsInt();
            } catch (RuntimeException e) {
                gpuSample = -1; // a failed sample is a null in the log, never a failed step
            }
        }
        return gpuSample;
    }

    /** Writes every step to {@code writer} from now on (null stops); the caller closes it. */
    public void stepLog(StepLogWriter writer) {
        this.stepLog = writer;
    }

    /**
     * The step log's source of {@code gpu_util} (busy percent, -1 unknown); null: the log says null. Without this
     * call the registered {@link DataWaitContext}s' {@link DataWaitContext#gpuPercent()} (cuda-bridge's NVML).
     */
    public void gpuPercent(IntSupplier percent) {
        this.gpuPercent = percent;
    }

    /**
     * The dataset the warning's next action benchmarks ({@code pinshard bench DATASET --sweep --gpu-rate N});
     * "DATASET" until set. The loader sets its dataset's location.
     */
    public void dataset(String location) {
        this.dataset = location == null || location.isEmpty() ? "DATASET" : location;
    }

    /** The registered contexts, looked up once per JVM, when the first monitor is made. */
    private static final class Discovered {
        static final java.util.List<DataWaitContext> CONTEXTS =
            DataWaitContext.load(DataWaitMonitor.class.getClassLoader());
        static final Supplier<String> CONTEXT = DataWaitContext.describeAll(CONTEXTS);
        static final IntSupplier GPU_PERCENT = DataWaitContext.gpuPercentOf(CONTEXTS);
    }

    /**
     * Adds what {@code context} says (e.g. cuda-bridge's "GPU 0 utilisation 41 %") to the warning, asked only when
     * the warning fires, in place of the registered {@link DataWaitContext}s; null removes it. A context that throws is left out of the warning, never fails a step.
     */
    public void warningContext(Supplier<String> context) {
        this.warningContext = context;
    }

    private String context() {
        Supplier<String> context = warningContext;
        if (context == null) {
            return "";
        }
        try {
            String text = context.get();
            return text == null || text.isEmpty() ? "" : "; " + text;
        } catch (RuntimeException e) {
            return "; (" + e.getMessage() + ")";
        }
    }

    /** Share of step time spent waiting since start-up, in percent (0 before any step). */
    public double dataWaitPercent() {
        long step = totalStep;
        return step == 0 ? 0 : 100.0 * totalWait / step;
    }

    public long totalWaitNanos() {
        return totalWait;
    }

    public long totalStepNanos() {
        return totalStep;
    }

    public long steps() {
        return steps;
    }

    public long lastWaitNanos() {
        return lastWaitNanos;
    }

    /** The warning as logged, or null before it fired. */
    public String warning() {
        return warning;
    }

    /** Whether the warning has fired. */
    public boolean warned() {
        return warned;
    }
}
