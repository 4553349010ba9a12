package io.pinshard.cli;

import io.pinshard.writer.convert.ConvertProgress;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * Shows a conversion's progress: a progress bar (images/s, MB/s in and out, ETA) on a terminal,
 * a log line every {@code logInterval} otherwise (CI logs, batch jobs), or nothing.
 */
final class ConvertProgressReporter implements ConvertProgress, AutoCloseable {
    enum Mode { BAR, LOG, NONE }

    private final Mode mode;
    private final PrintStream log;
    private final long logIntervalNanos;
    private final long startNanos = System.nanoTime();
    private ProgressBar bar;
    private long total;
    private long done;
    private long thisRun;
    private long rejected;
    private long bytesIn;
    private long bytesOut;
    private long lastLogNanos = startNanos;

    ConvertProgressReporter(Mode mode, PrintStream log, Duration logInterval) {
        this.mode = mode;
        this.log = log;
        this.logIntervalNanos = logInterval.toNanos();
    }

    static Mode defaultMode() {
        return System.console() != null ? Mode.BAR : Mode.LOG;
    }

    @Override
    public void started(long inputs, long alreadyDone) {
        total = inputs;
        done = alreadyDone;
        if (alreadyDone > 0 && mode != Mode.NONE) {
            log.printf(Locale.ROOT, "resuming: %d of %d inputs were finished by an earlier run%n", alreadyDone, inputs);
        }
        if (mode == Mode.BAR) {
            bar = new ProgressBarBuilder().setTaskName("convert").setInitialMax(inputs).setStyle(ProgressBarStyle.ASCII)
                .setUnit(" img", 1).showSpeed().setUpdateIntervalMillis(500).build();
            bar.stepTo(alreadyDone);
        }
    }

    @Override
    public void committed(long inputBytes, long outputBytes, boolean wasRejected) {
        done++;
        thisRun++;
        rejected += wasRejected ? 1 : 0;
        bytesIn += inputBytes;
        bytesOut += outputBytes;
        if (bar != null) {
            bar.step();
            bar.setExtraMessage(String.format(Locale.ROOT, " | in %.1f MB/s | out %.1f MB/s", bytesIn / 1e6 / seconds(),
                bytesOut / 1e6 / seconds()));
        } else if (mode == Mode.LOG) {
            long now = System.nanoTime();
            if (now - lastLogNanos >= logIntervalNanos || done == total) {
                lastLogNanos = now;
                log.printf(Locale.ROOT, "convert: %d/%d images (%.1f%%), %d rejected, %s, ETA %s%n", done, total,
                    total == 0 ? 100.0 : 100.0 * done / total, rejected, rates(), eta());
            }
        }
    }

    private double seconds() {
        return Math.max(1e-9, (System.nanoTime() - startNanos) / 1e9);
    }

    private String rates() {
        double seconds = seconds();
        return String.format(Locale.ROOT, "%.1f img/s, in %.1f MB/s, out %.1f MB/s", thisRun / seconds,
            bytesIn / 1e6 / seconds, bytesOut / 1e6 / seconds);
    }

    private String eta() {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        if (thisRun == 0) {
            return "?";
        }
        long remaining = (long) ((total - done) * seconds / thisRun);
        return Duration.ofSeconds(remaining).toString().substring(2).toLowerCase(Locale.ROOT);
    }

    @Override
    public void close() {
        if (bar != null) {
            bar.close();
        }
    }
}
