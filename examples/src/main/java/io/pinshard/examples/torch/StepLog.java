package io.pinshard.examples.torch;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * Per training step: loss, step time, data-wait time and data-wait share, kept in preallocated arrays (recording
 * a step allocates nothing) and written out as text lines in the same format as the PyTorch baseline
 * (scripts/train_fashion_mnist_torch.py):
 * {@code step 12 epoch 0 loss 0.61234 step_ms 151.20 wait_ms 0.03 wait_pct 0.0}.
 *
 * <p>Step time is what the loader's {@code DataWaitMonitor} counts: from the arrival of one batch to the arrival
 * of the next, so it includes the wait for that next batch. An epoch's first step has no step before it: its step
 * time is its wait.
 */
public final class StepLog {
    private final int[] epoch;
    private final float[] loss;
    private final float[] stepMs;
    private final float[] waitMs;
    private int steps;

    /** Room for {@code capacity} steps. */
    public StepLog(int capacity) {
        epoch = new int[capacity];
        loss = new float[capacity];
        stepMs = new float[capacity];
        waitMs = new float[capacity];
    }

    /** Records the next step. */
    public void record(int epochNumber, float stepLoss, long stepNanos, long waitNanos) {
        if (steps == loss.length) {
            throw new IllegalStateException("step log full: " + steps + " steps");
        }
        epoch[steps] = epochNumber;
        loss[steps] = stepLoss;
        stepMs[steps] = stepNanos / 1e6f;
        waitMs[steps] = waitNanos / 1e6f;
        steps++;
    }

    /** Steps recorded so far. */
    public int steps() {
        return steps;
    }

    /** The training loss of {@code step}. */
    public float loss(int step) {
        return loss[check(step)];
    }

    /** Step time in milliseconds, from the previous batch's arrival to this one's. */
    public float stepMs(int step) {
        return stepMs[check(step)];
    }

    /** How long the trainer waited for this step's batch, in milliseconds. */
    public float waitMs(int step) {
        return waitMs[check(step)];
    }

    /** Data-wait share of this step's time, in percent. */
    public float waitPercent(int step) {
        check(step);
        return stepMs[step] <= 0 ? 0 : 100f * waitMs[step] / stepMs[step];
    }

    /** The losses of all steps so far, in order. */
    public float[] losses() {
        return Arrays.copyOf(loss, steps);
    }

    /** Mean loss of steps {@code from} (inclusive) to {@code to} (exclusive). */
    public double meanLoss(int from, int to) {
        if (from < 0 || to > steps || from >= to) {
            throw new IllegalArgumentException("no steps in [" + from + ", " + to + ") of " + steps);
        }
        double sum = 0;
        for (int i = from; i < to; i++) {
            sum += loss[i];
        }
        return sum / (to - from);
    }

    /** One step as a log line. */
    public String line(int step) {
        check(step);
        return String.format(Locale.ROOT, "step %d epoch %d loss %.5f step_ms %.2f wait_ms %.2f wait_pct %.1f",
            step, epoch[step], loss[step], stepMs[step], waitMs[step], waitPercent(step));
    }

    /** Writes every step's line to {@code file}. */
    public void write(Path file) throws IOException {
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file))) {
            for (int i = 0; i < steps; i++) {
                out.println(line(i));
            }
        }
    }

    private int check(int step) {
        if (step < 0 || step >= steps) {
            throw new IndexOutOfBoundsException("step " + step + " of " + steps);
        }
        return step;
    }
}
