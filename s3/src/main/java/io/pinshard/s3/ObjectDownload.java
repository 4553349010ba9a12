package io.pinshard.s3;

import io.pinshard.format.Crc32c;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongConsumer;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * pinshard's one loop that fetches an object whole into a new file, for the streamed cache ({@link S3ShardSource})
 * and {@code pull} alike. The body is written as it arrives; a body that breaks off is resumed from the bytes
 * already written with a range request pinned to the first response's ETag ({@code If-Match}), so the pieces are
 * one version of the object, and a store that ignores the range starts over. Failed requests are retried with
 * jittered exponential backoff (at least any {@code Retry-After}) on top of the SDK's own retries, until
 * {@code maxAttempts} attempts or {@code callTimeout} in all per {@link #TIMEOUT_UNIT_BYTES} of the object (so a
 * multi-GB object is not held to the time of a shard of the default size). A store that sends no ETag cannot pin a
 * resumed range to the same version: its broken bodies start over from the first byte. The length is checked against the expected one before
 * a byte is written, and the file is forced to disk before {@link #to} returns (the caller renames it into place).
 * The body's CRC32C is computed as the bytes arrive, while they are still in the core's cache, so that a caller
 * checking the file against a listed checksum need not read it back ({@link Body#crc32c}).
 * Every failure is a {@link DownloadException} naming the object and the cause.
 */
public final class ObjectDownload {
    private static final int COPY_BYTES = 256 << 10;
    /**
     * Each thread's copy buffer and its one ByteBuffer view, kept: a fetch thread downloads shard after shard, and
     * a new buffer per download (or a new view per piece) was heap traffic on the store path.
     */
    private static final ThreadLocal<ByteBuffer> COPY = ThreadLocal.withInitial(() -> ByteBuffer.allocate(COPY_BYTES));
    /** The call timeout bounds each this many bytes of an object (the default shard size), not the whole of it. */
    public static final long TIMEOUT_UNIT_BYTES = 256L << 20;

    /** Why a download failed. */
    public enum Failure {
        /** The store has no such object (or bucket). */
        MISSING,
        /** The object is not the one expected: its length differs, it changed mid-download, or a check refused it. */
        NOT_THE_LISTED_OBJECT,
        /** Attempts or time ran out, or the store refused the request. */
        UNAVAILABLE,
        /**
         * The local file could not be written (a full disk, most often): not retried, another attempt would fail
         * the same way, and the message says how much room the object needs and the file system has.
         */
        LOCAL_WRITE
    }

    /** A failed download: {@link #failure()} says which kind, the message names the object. */
    public static final class DownloadException extends RuntimeException {
        private final Failure failure;

        DownloadException(Failure failure, String message, Throwable cause) {
            super(message, cause);
            this.failure = failure;
        }

        public Failure failure() {
            return failure;
        }
    }

    /** A downloaded object: its ETag (null when the store sent none) and the CRC32C of the bytes written. */
    public record Body(String etag, int crc32c) {
    }

    /** A look at the first response before its body is written: null when it is the object wanted, else why not. */
    @FunctionalInterface
    public interface ResponseCheck {
        ResponseCheck NONE = response -> null;

        String problem(GetObjectResponse response);
    }

    private final S3Client s3;
    private final int maxAttempts;
    private final Duration callTimeout;

    /** Downloads through {@code s3} (not closed here), within {@code maxAttempts} and {@code callTimeout} each. */
    public ObjectDownload(S3Client s3, int maxAttempts, Duration callTimeout) {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
        }
        this.s3 = s3;
        this.maxAttempts = maxAttempts;
        this.callTimeout = callTimeout;
    }

    /**
     * Writes object {@code key} of {@code bucket}, which must hold {@code expectedBytes} bytes, into the new file
     * {@code part}; returns its ETag and the CRC32C of the file's bytes.
     *
     * @param object  how messages name the object ({@code s3://bucket/key})
     * @param arrived told of every piece of body written, in bytes
     * @throws DownloadException naming {@code object}; {@code part} may hold a partial body (the caller deletes it)
     */
    public Body to(Path part, String bucket, String key, long expectedBytes, String object, ResponseCheck check,
                   LongConsumer arrived) {
        long units = Math.max(1, (expectedBytes + TIMEOUT_UNIT_BYTES - 1) / TIMEOUT_UNIT_BYTES);
        Duration budget = callTimeout.multipliedBy(units);
        long deadline = System.nanoTime() + budget.toNanos();
        String etag = null;
        ByteBuffer copy = COPY.get();
        Written written = new Written();
        try (FileChannel out = FileChannel.open(part, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            for (int attempt = 1; ; attempt++) {
                long have = out.position(); // what earlier attempts wrote before their bodies broke off
                // Nothing to pin a range to, or a write that broke off mid-piece (the checksum has only whole
                // pieces): start over.
                if (have > 0 && (etag == null || have != written.bytes)) {
                    have = written.startOver(out);
                }
                GetObjectRequest.Builder request = GetObjectRequest.builder().bucket(bucket).key(key);
                if (have > 0) {
                    request.range("bytes=" + have + "-").ifMatch(etag);
                }
                try (ResponseInputStream<GetObjectResponse> in = s3.getObject(request.build())) {
                    GetObjectResponse response = in.response();
                    if (have > 0 && response.contentRange() == null) { // the store ignored the range: start over
                        have = written.startOver(out);
                    } else if (have > 0 && !response.contentRange().startsWith("bytes " + have + "-")) {
                        in.abort(); // a range from elsewhere than the bytes written: start over from the first byte
                        written.startOver(out);
                        throw new IOException("the store answered the request for bytes " + have + "- with "
                            + response.contentRange());
                    }
                    if (have == 0) { // a whole body (every first attempt): its length and the check apply
                        etag = response.eTag();
                        Long length = response.contentLength();
                        String problem = length != null && length != expectedBytes
                            ? "object holds " + length + " bytes, the manifest says " + expectedBytes + " (ETag "
                                + etag + "): replaced under the same key, or the manifest belongs to another upload"
                            : check.problem(response);
                        if (problem != null) {
                            in.abort();
                            throw new DownloadException(Failure.NOT_THE_LISTED_OBJECT, object + ": " + problem
                                + "; not downloaded", null);
                        }
                    }
                    try {
                        have = copy(in, out, part, have, expectedBytes, copy, written, deadline, budget, object,
                            arrived);
                    } catch (IOException | RuntimeException e) {
                        in.abort(); // close would drain the rest of a broken or crawling body first
                        throw e;
                    }
                    if (have == expectedBytes) {
                        try {
                            out.force(true); // the rename must never publish bytes still only in flight
                        } catch (IOException e) {
                            throw cannotWrite(part, object, expectedBytes, e);
                        }
                        return new Body(etag, written.crc.value());
                    }
                    throw new IOException("the body ended after " + have + " of " + expectedBytes + " bytes");
                } catch (NoSuchKeyException | NoSuchBucketException e) {
                    throw new DownloadException(Failure.MISSING, object + ": missing from the store ("
                        + e.awsErrorDetails().errorCode() + ")", e);
                } catch (S3Exception e) {
                    if (e.statusCode() == 412) {
                        throw new DownloadException(Failure.NOT_THE_LISTED_OBJECT, object + " was replaced during "
                            + "its download (ETag " + etag + " no longer matches)", e);
                    }
                    if (e.statusCode() < 500 && e.statusCode() != 429) {
                        throw failure(object, attempt, e);
                    }
                    backOff(object, attempt, deadline, e, retryAfter(e));
                } catch (IOException | SdkException e) {
                    if (e instanceof InterruptedIOException || Thread.currentThread().isInterrupted()) {
                        throw failure(object, attempt, e);
                    }
                    backOff(object, attempt, deadline, e, 0);
                }
            }
        } catch (IOException e) {
            throw cannotWrite(part, object, expectedBytes, e);
        }
    }

    /**
     * A write to {@code part} failed: the message names the file, the object and the cause, and when the file
     * system is full, how much room it has left against the object's size.
     */
    private static DownloadException cannotWrite(Path part, String object, long objectBytes, IOException e) {
        return new DownloadException(Failure.LOCAL_WRITE, "cannot write " + part + " for " + object + ": "
            + (e.getMessage() != null ? e.getMessage() : e.toString()) + DiskRoom.note(part.getParent(), objectBytes, e),
            e);
    }

    /** The body's bytes in the file so far: the checksum of the whole pieces written, and how many bytes it covers. */
    private static final class Written {
        final Crc32c crc = new Crc32c();
        long bytes;

        /** Empties the file and the checksum; returns the bytes now written (0). */
        long startOver(FileChannel out) throws IOException {
            out.truncate(0);
            out.position(0);
            crc.reset();
            bytes = 0;
            return 0;
        }
    }

    private long copy(InputStream in, FileChannel out, Path part, long have, long expected, ByteBuffer copy,
                      Written written, long deadline, Duration budget, String object, LongConsumer arrived)
        throws IOException {
        byte[] array = copy.array();
        for (int n; have < expected && (n = in.read(array, 0, (int) Math.min(array.length, expected - have))) > 0; ) {
            copy.clear().limit(n);
            try {
                while (copy.hasRemaining()) {
                    out.write(copy);
                }
            } catch (IOException e) { // the store's bytes arrived; this disk could not take them: no retry
                throw cannotWrite(part, object, expected, e);
            }
            written.crc.update(array, 0, n);
            written.bytes += n;
            have += n;
            arrived.accept(n);
            if (System.nanoTime() - deadline > 0) {
                throw new DownloadException(Failure.UNAVAILABLE, object + ": only " + have + " of " + expected
                    + " bytes arrived within the call timeout of " + budget
                    + (budget.equals(callTimeout) ? "" : " (" + callTimeout + " per 256 MiB)"), null);
            }
        }
        return have;
    }

    /** Sleeps before the next attempt, or throws when attempts or time are spent. */
    private void backOff(String object, int attempt, long deadline, Exception cause, long retryAfterMillis) {
        if (attempt >= maxAttempts) {
            throw failure(object, attempt, cause);
        }
        long base = Math.min(5_000, 100L << Math.min(attempt - 1, 10));
        long sleep = Math.max(retryAfterMillis, base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1));
        if (System.nanoTime() + sleep * 1_000_000 - deadline > 0) {
            throw failure(object, attempt, cause);
        }
        try {
            Thread.sleep(sleep);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure(object, attempt, cause);
        }
    }

    private DownloadException failure(String object, int attempts, Exception cause) {
        return new DownloadException(Failure.UNAVAILABLE, "cannot fetch " + object + " after " + attempts
            + " attempt(s) within " + callTimeout + " per 256 MiB: " + describe(cause), cause);
    }

    private static String describe(Exception e) {
        if (e instanceof S3Exception s3 && s3.awsErrorDetails() != null) {
            return "HTTP " + s3.statusCode() + " " + s3.awsErrorDetails().errorCode();
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return e.getClass().getSimpleName() + ": " + e.getMessage()
            + (root != e ? " (" + root.getClass().getSimpleName() + ": " + root.getMessage() + ")" : "");
    }

    /** A Retry-After header in seconds, as milliseconds (0 when absent). */
    private static long retryAfter(S3Exception e) {
        if (e.awsErrorDetails() == null || e.awsErrorDetails().sdkHttpResponse() == null) {
            return 0;
        }
        Optional<String> header = e.awsErrorDetails().sdkHttpResponse().firstMatchingHeader("Retry-After");
        try {
            return header.map(v -> Math.min(60_000, Long.parseLong(v.trim()) * 1000)).orElse(0L);
        } catch (NumberFormatException ignored) {
            return 0;
        }
    }
}
