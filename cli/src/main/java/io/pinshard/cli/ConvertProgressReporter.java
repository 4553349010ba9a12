package io.pinshard.cli;

import io.pinshard.writer.convert.ConvertProgress;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Shows a conversion's progress: on a terminal one line redrawn every half second and fitted to the terminal's width
 * (percent, bar, images, images/s, MB/s in and out, elapsed, ETA; fields dropped, lowest rank first, rather than cut:
 * {@link TerminalLine}), a log line every {@code logInterval} otherwise (CI logs, batch jobs), or nothing. The ETA is
 * held back ("ETA --") until it is steady: it counts from the first finished image (the JVM's warm-up is not the
 * rate) and shows once three more have finished over three seconds (a 53-s job's first ETA said 8m24s).
 */
final class ConvertProgressReporter implements ConvertProgress, AutoCloseable {
    enum Mode { BAR, LOG, NONE }

    private static final long STEADY_NANOS = 3_000_000_000L;
    private static final long STEADY_IMAGES = 3;

    private final Mode mode;
    private final PrintStream log;
    private final long logIntervalNanos;
    private final long startNanos = System.nanoTime();
    private volatile ScheduledExecutorService ticker;
    private int columns;
    private volatile long total;
    private volatile long done;
    private volatile long thisRun;
    private volatile long rejected;
    private volatile long bytesIn;
    private volatile long bytesOut;
    private volatile long firstCommitNanos;
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
            columns = TerminalLine.terminalColumns();
            ticker = Executors.newSingleThreadScheduledExecutor(runnable -> {
                Thread thread = new Thread(runnable, "pinshard-convert-progress");
                thread.setDaemon(true);
                return thread;
            });
            ticker.scheduleAtFixedRate(this::draw, 0, 500, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void committed(long inputBytes, long outputBytes, boolean wasRejected) {
        if (thisRun == 0) {
            firstCommitNanos = System.nanoTime();
        }
        done++;
        thisRun++;
        rejected += wasRejected ? 1 : 0;
        bytesIn += inputBytes;
        bytesOut += outputBytes;
        if (ticker != null && done == total) {
            finishLine();  // before convert's summary, which follows on stdout
        } else if (mode == Mode.LOG) {
            long now = System.nanoTime();
            if (now - lastLogNanos >= logIntervalNanos || done == total) {
                lastLogNanos = now;
                String eta = etaSeconds(now) < 0 ? "?" : TerminalLine.duration(etaSeconds(now));
                log.printf(Locale.ROOT, "convert: %d/%d images (%.1f%%), %d rejected, %s, ETA %s%n", done, total,
                    total == 0 ? 100.0 : 100.0 * done / total, rejected, rates(), eta);
            }
        }
    }

    private double seconds() {
        return Math.max(1e-9, (System.nanoTime() - startNanos) / 1e9);
    }

    private String rates() {
        double seconds = seconds();
        return String.format(Locale.ROOT, "%s img/s, in %s MB/s, out %s MB/s", TerminalLine.rate(thisRun / seconds),
            TerminalLine.rate(bytesIn / 1e6 / seconds), TerminalLine.rate(bytesOut / 1e6 / seconds));
    }

    /** Seconds left at the rate since the first finished image, or -1 until that rate is steady. */
    private long etaSeconds(long now) {
        long since = now - firstCommitNanos;
        long after = thisRun - 1;
        if (thisRun == 0 || since < STEADY_NANOS || after < STEADY_IMAGES) {
            return -1;
        }
        return (long) Math.ceil((total - done) * (since / 1e9) / after);
    }

    /** The terminal line, fitted to its width, redrawn in place. */
    private synchronized void draw() {
        long now = System.nanoTime();
        double seconds = seconds();
        long eta = etaSeconds(now);
        long images = done;
        long all = total;
        TerminalLine line = new TerminalLine()
            .add(String.format(Locale.ROOT, "convert %3d%%", all == 0 ? 100 : images * 100 / all), 10)
            .bar(all == 0 ? 1 : (double) images / all, 3)
            .add(images + "/" + all + " img", 9)
            .add(TerminalLine.rate(thisRun / seconds) + " img/s", 6);
        if (rejected > 0) {
            line.add(rejected + " rejected", 5);
        }
        line.add("in " + TerminalLine.rate(bytesIn / 1e6 / seconds) + " MB/s", 2)
            .add("out " + TerminalLine.rate(bytesOut / 1e6 / seconds) + " MB/s", 1)
            .add(TerminalLine.duration((long) seconds), 4)
            .add("ETA " + (eta < 0 ? "--" : TerminalLine.duration(eta)), 7);
        log.print("\r" + line.fit(columns) + "\u001b[K");
        log.flush();
    }

    @Override
    public void close() {
        finishLine();
    }

    /** The last redraw and the end of the line, once (the ticker stopped first, outside the drawing lock). */
    private void finishLine() {
        ScheduledExecutorService stopping;
        synchronized (this) {
            stopping = ticker;
            ticker = null;
        }
        if (stopping == null) {
            return;
        }
        stopping.shutdownNow();
        try {
            stopping.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            draw();
            log.println();
            log.flush();
        }
    }
}
