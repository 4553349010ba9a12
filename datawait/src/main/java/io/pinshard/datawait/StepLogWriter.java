package io.pinshard.datawait;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The step log: one JSON line per training step, the schema the Python path ({@code python/pinshard/_steplog.py})
 * writes too, so {@code pinshard report} reads both:
 * <pre>
 * {"step": 12, "epoch": 0, "time": 1764820000.123, "data_wait_s": 0.000412, "step_s": 0.051230,
 *  "data_wait_fraction": 0.0080, "gpu_util": 97, "images": 256, "warmup": false, "rank": 0,
 *  "job": "Train-20261204T031500", "dataset": "/data/train"}
 * </pre>
 * {@code gpu_util} is null when unknown; {@code warmup} marks the steps the monitor's warning does not judge (its
 * warm-up), which {@code pinshard report} leaves out. Formats each line into one preallocated direct buffer and writes it with
 * one {@link FileChannel#write} (appending; a reader sees whole lines or a torn last line, which the report skips):
 * no heap allocation per step. Single writer thread.
 */
public final class StepLogWriter implements AutoCloseable {
    /** The environment variable naming the log file, or a folder for {@code JOB-rankN.jsonl} files. */
    public static final String ENVIRONMENT = "PINSHARD_STEP_LOG";

    private static final int MAX_LINE = 4096;
    private static final byte[] STEP = bytes("{\"step\": ");
    private static final byte[] EPOCH = bytes(", \"epoch\": ");
    private static final byte[] TIME = bytes(", \"time\": ");
    private static final byte[] WAIT = bytes(", \"data_wait_s\": ");
    private static final byte[] STEP_S = bytes(", \"step_s\": ");
    private static final byte[] FRACTION = bytes(", \"data_wait_fraction\": ");
    private static final byte[] GPU = bytes(", \"gpu_util\": ");
    private static final byte[] NULL = bytes("null");
    private static final byte[] IMAGES = bytes(", \"images\": ");
    private static final byte[] WARMUP = bytes(", \"warmup\": ");
    private static final byte[] TRUE = bytes("true");
    private static final byte[] FALSE = bytes("false");

    private final Path path;
    private final FileChannel channel;
    private final ByteBuffer line = ByteBuffer.allocateDirect(MAX_LINE);
    private final byte[] suffix;
    private final byte[] digits = new byte[20];

    private StepLogWriter(Path path, String job, int rank, String dataset) throws IOException {
        this.path = path;
        Path parent = path.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        this.suffix = bytes(", \"rank\": " + rank + ", \"job\": " + quote(job) + ", \"dataset\": " + quote(dataset)
            + "}\n");
        if (suffix.length > MAX_LINE / 2) {
            throw new IllegalArgumentException("step log: job and dataset names too long (" + suffix.length + " bytes)");
        }
        this.channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.APPEND);
    }

    /**
     * A writer appending to {@code target}, or to {@code JOB-rankN.jsonl} inside it when it is a folder (or ends
     * with a separator).
     */
    public static StepLogWriter open(String target, String job, int rank, String dataset) {
        Path path = Path.of(target);
        if (Files.isDirectory(path) || target.endsWith("/")) {
            path = path.resolve(job.replace('/', '_') + "-rank" + rank + ".jsonl");
        }
        try {
            return new StepLogWriter(path, job, rank, dataset);
        } catch (IOException e) {
            throw new UncheckedIOException("step log " + path + ": " + e.getMessage(), e);
        }
    }

    /** A writer where {@code PINSHARD_STEP_LOG} says, or null when it is not set. */
    public static StepLogWriter fromEnvironment(int rank, String dataset) {
        String target = System.getenv(ENVIRONMENT);
        return target == null || target.isEmpty() ? null : open(target, defaultJob(), rank, dataset);
    }

    /** The main class's simple name and this JVM's start time, e.g. "Train-20261204T031500". */
    public static String defaultJob() {
        String command = System.getProperty("sun.java.command", "java").trim();
        String main = command.isEmpty() ? "java" : command.split("\\s+")[0];
        main = main.substring(main.lastIndexOf('/') + 1);
        if (main.endsWith(".jar")) {
            main = main.substring(0, main.length() - 4);
        } else {
            main = main.substring(main.lastIndexOf('.') + 1);
        }
        return main + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss", Locale.ROOT));
    }

    public Path path() {
        return path;
    }

    /**
     * Appends one step.
     *
     * @param gpuPercent NVML busy percent, or -1 for null
     * @param warmup     a warm-up step (not judged)
     */
    public void write(long step, int epoch, long epochMillis, long waitNanos, long stepNanos, int gpuPercent,
                      int images, boolean warmup) {
        ByteBuffer out = line;
        out.clear();
        out.put(STEP);
        putLong(step);
        out.put(EPOCH);
        putLong(epoch);
        out.put(TIME);
        putFixed(epochMillis, 1000, 3);
        out.put(WAIT);
        putFixed(waitNanos / 1000, 1_000_000, 6);
        out.put(STEP_S);
        putFixed(stepNanos / 1000, 1_000_000, 6);
        out.put(FRACTION);
        putFixed(stepNanos > 0 ? (long) (waitNanos * 10_000.0 / stepNanos + 0.5) : 0, 10_000, 4);
        out.put(GPU);
        if (gpuPercent < 0) {
            out.put(NULL);
        } else {
            putLong(gpuPercent);
        }
        out.put(IMAGES);
        putLong(images);
        out.put(WARMUP);
        out.put(warmup ? TRUE : FALSE);
        out.put(suffix);
        out.flip();
        try {
            while (out.hasRemaining()) {
                channel.write(out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("step log " + path + ": " + e.getMessage(), e);
        }
    }

    /** {@code value / unit} with {@code decimals} digits after the point (value >= 0). */
    private void putFixed(long value, long unit, int decimals) {
        long v = Math.max(0, value);
        putLong(v / unit);
        line.put((byte) '.');
        long fraction = v % unit;
        for (long scale = unit / 10; scale > 0 && decimals-- > 0; scale /= 10) {
            line.put((byte) ('0' + fraction / scale % 10));
        }
    }

    private void putLong(long value) {
        if (value < 0) {
            line.put((byte) '-');
            value = -value;
        }
        int n = 0;
        do {
            digits[n++] = (byte) ('0' + value % 10);
            value /= 10;
        } while (value > 0);
        while (n > 0) {
            line.put(digits[--n]);
        }
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException("step log " + path + ": " + e.getMessage(), e);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** A JSON string literal of {@code text}. */
    static String quote(String text) {
        StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
