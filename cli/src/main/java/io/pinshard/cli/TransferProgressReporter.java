package io.pinshard.cli;

import io.pinshard.s3.transfer.TransferProgress;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * Shows a push's or pull's progress as convert shows its own: a bar (MiB, MiB/s, ETA) on a terminal, a log line
 * every {@code logInterval} otherwise, or nothing. Called from the transfer threads at once.
 */
final class TransferProgressReporter implements TransferProgress, AutoCloseable {
    private final String verb;
    private final ConvertProgressReporter.Mode mode;
    private final PrintStream log;
    private final long logIntervalNanos;
    private final long startNanos = System.nanoTime();
    private ProgressBar bar;
    private int files;
    private int filesDone;
    private int filesSkipped;
    private long totalBytes;
    private long bytes;
    private long lastLogNanos = startNanos;

    TransferProgressReporter(String verb, ConvertProgressReporter.Mode mode, PrintStream log, Duration logInterval) {
        this.verb = verb;
        this.mode = mode;
        this.log = log;
        this.logIntervalNanos = logInterval.toNanos();
    }

    @Override
    public synchronized void started(int fileCount, long total, long already) {
        files = fileCount;
        totalBytes = total;
        // Started again by a push that retries with chunked encoding off: count that try from zero.
        bytes = 0;
        filesDone = 0;
        filesSkipped = 0;
        if (bar != null) {
            bar.close();
        }
        if (mode == ConvertProgressReporter.Mode.BAR) {
            // continuousUpdate: without it the bar redraws only when the byte count grew, so "| N/M shards" set
            // after a shard's last bytes (or a skipped shard's) stayed unshown until more bytes came.
            bar = new ProgressBarBuilder().setTaskName(verb).setInitialMax(total).setStyle(ProgressBarStyle.ASCII)
                .setUnit(" MiB", 1 << 20).showSpeed().setUpdateIntervalMillis(500).continuousUpdate().build();
        }
    }

    @Override
    public synchronized void bytes(long count) {
        bytes += count;
        if (bar != null) {
            bar.stepTo(Math.min(bytes, totalBytes));
        }
    }

    @Override
    public synchronized void fileDone(String file, long size, boolean skipped) {
        filesDone++;
        filesSkipped += skipped ? 1 : 0;
        if (bar != null) {
            bar.setExtraMessage(String.format(Locale.ROOT, " | %d/%d shards", filesDone, files));
        } else if (mode == ConvertProgressReporter.Mode.LOG) {
            long now = System.nanoTime();
            if (now - lastLogNanos >= logIntervalNanos || filesDone == files) {
                lastLogNanos = now;
                double seconds = Math.max(1e-9, (now - startNanos) / 1e9);
                log.printf(Locale.ROOT, "%s: %d/%d shards (%d already there), %s of %s (%.1f%%), %.1f MB/s%n", verb,
                    filesDone, files, filesSkipped, Units.bytes(bytes), Units.bytes(totalBytes),
                    totalBytes == 0 ? 100.0 : 100.0 * Math.min(bytes, totalBytes) / totalBytes, bytes / 1e6 / seconds);
            }
        }
    }

    /**
     * What this run did so far, for the stop notice: "2 of 6 shard(s) in place (1 already there), 78.1 KiB
     * of 234.4 KiB sent", or "no shard in place yet" before the transfer started.
     */
    synchronized String done(String moved) {
        if (files == 0 && totalBytes == 0) {
            return "no shard in place yet";
        }
        return String.format(Locale.ROOT, "%d of %d shard(s) in place%s, %s of %s %s", filesDone, files,
            filesSkipped > 0 ? " (" + filesSkipped + " already there)" : "", Units.bytes(bytes),
            Units.bytes(totalBytes), moved);
    }

    @Override
    public synchronized void close() {
        if (bar != null) {
            bar.close();
            bar = null;
        }
    }
}
