package io.pinshard.s3.transfer;

/**
 * What a push or pull reports as it goes. {@link #bytes} and {@link #fileDone} are called from the transfer threads
 * at once: implementations must be thread-safe.
 */
public interface TransferProgress {
    /** Reports nothing. */
    TransferProgress NONE = new TransferProgress() {
    };

    /**
     * The work is known.
     *
     * @param files        the dataset's shards
     * @param totalBytes   their total size
     * @param alreadyBytes bytes of shards already at the destination (skipped)
     */
    default void started(int files, long totalBytes, long alreadyBytes) {
    }

    /**
     * {@code count} more bytes were sent or received (a push counts each byte of a body once, however often the SDK
     * reads it).
     */
    default void bytes(long count) {
    }

    /** One shard is in place at the destination, transferred by this run or found there already. */
    default void fileDone(String file, long bytes, boolean skipped) {
    }
}
