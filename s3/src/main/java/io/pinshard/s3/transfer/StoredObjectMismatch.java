package io.pinshard.s3.transfer;

import io.pinshard.s3.S3Location;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * The store accepted an upload but keeps something else under the key: another length, no object, other bytes.
 * {@link #keptAwsChunkedFraming()} tells the one cause pinshard can work around, a store that keeps aws-chunked
 * request bodies verbatim ({@code 490;chunk-signature=...\r\n} before the data).
 */
public final class StoredObjectMismatch extends TransferException {
    private static final long serialVersionUID = 1L;
    /** The first chunk header of an aws-chunked body: hex size, then a signature (signed) or nothing, then CRLF. */
    private static final Pattern CHUNK_HEADER =
        Pattern.compile("[0-9a-fA-F]{1,16}(;chunk-signature=[0-9a-f]{64})?\r\n");

    private final String object;
    private final boolean keptAwsChunkedFraming;

    /** {@code what} differs about {@code name}, whose stored bytes begin {@code storedStart}; then {@code outcome}. */
    StoredObjectMismatch(S3Location to, String name, String what, byte[] storedStart, String outcome) {
        super(to.uri(name) + ": " + what + (framed(storedStart) ? "; it begins '" + chunkHeader(storedStart)
            + "': the store kept the aws-chunked framing of the request body (chunked encoding off, "
            + "--s3-chunked-encoding off, sends plain bodies)" : "") + "; " + outcome);
        this.object = to.uri(name);
        this.keptAwsChunkedFraming = framed(storedStart);
    }

    /** The object, {@code s3://bucket/key}. */
    public String object() {
        return object;
    }

    /** Whether the stored object starts as an aws-chunked request body does. */
    public boolean keptAwsChunkedFraming() {
        return keptAwsChunkedFraming;
    }

    static boolean framed(byte[] storedStart) {
        return storedStart != null && CHUNK_HEADER.matcher(ascii(storedStart)).lookingAt();
    }

    private static String chunkHeader(byte[] storedStart) {
        String head = ascii(storedStart);
        int end = head.indexOf('\r');
        return head.substring(0, Math.min(end < 0 ? head.length() : end, 40)) + "...";
    }

    private static String ascii(byte[] bytes) {
        return new String(bytes, 0, Math.min(bytes.length, 128), StandardCharsets.ISO_8859_1);
    }
}
