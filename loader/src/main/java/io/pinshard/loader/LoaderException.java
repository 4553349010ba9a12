package io.pinshard.loader;

/**
 * A failure inside the loader, rethrown on the trainer's thread. When a record was at fault the cause is
 * the {@link io.pinshard.format.ShardFormatException} naming dataset, shard and record.
 */
public final class LoaderException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LoaderException(String message, Throwable cause) {
        super(message, cause);
    }
}
