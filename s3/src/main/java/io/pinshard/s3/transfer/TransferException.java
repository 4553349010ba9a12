package io.pinshard.s3.transfer;

/**
 * A push or pull that cannot go on: the message names the object ({@code s3://bucket/key}) or the local file and
 * what differed or failed. Never carries credentials.
 */
public class TransferException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TransferException(String message) {
        super(message);
    }

    public TransferException(String message, Throwable cause) {
        super(message, cause);
    }
}
