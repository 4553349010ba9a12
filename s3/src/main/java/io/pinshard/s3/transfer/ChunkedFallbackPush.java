package io.pinshard.s3.transfer;

import io.pinshard.s3.S3Clients;
import io.pinshard.s3.S3Location;
import io.pinshard.s3.S3Settings;
import io.pinshard.s3.S3Settings.ChunkedEncoding;
import java.nio.file.Path;
import java.util.function.Consumer;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A {@link DatasetPush} through a client of its own made from {@link S3Settings}. With chunked encoding
 * {@link ChunkedEncoding#AUTO auto}, a push that finds a stored object beginning with aws-chunked framing
 * ({@link StoredObjectMismatch#keptAwsChunkedFraming()}) says so and runs once more with chunked encoding off: the
 * rerun re-sends every object whose stored length is wrong (a resumed push skips only objects that landed right).
 */
public final class ChunkedFallbackPush {
    private ChunkedFallbackPush() {
    }

    /**
     * Pushes {@code directory} to {@code to}; {@code notice} gets one line when it falls back.
     *
     * @throws TransferException as {@link DatasetPush#push} does, from the last try
     */
    public static PushResult push(S3Settings settings, PushOptions options, TransferProgress progress,
                                  Path directory, S3Location to, Consumer<String> notice) {
        try {
            return pushOnce(settings, options, progress, directory, to);
        } catch (StoredObjectMismatch e) {
            if (settings.chunkedEncoding() != ChunkedEncoding.AUTO || !e.keptAwsChunkedFraming()) {
                throw e;
            }
            notice.accept(e.object() + " was stored with its aws-chunked framing: pushing again with chunked "
                + "encoding off (--s3-chunked-encoding off, or " + ChunkedEncoding.ENVIRONMENT
                + "=off, skips this try)");
            return pushOnce(settings.withChunkedEncoding(ChunkedEncoding.OFF), options, progress, directory, to);
        }
    }

    private static PushResult pushOnce(S3Settings settings, PushOptions options, TransferProgress progress,
                                       Path directory, S3Location to) {
        try (S3Client client = S3Clients.create(settings)) {
            return new DatasetPush(client, options, progress).push(directory, to);
        }
    }
}
