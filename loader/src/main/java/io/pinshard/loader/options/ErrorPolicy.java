package io.pinshard.loader.options;

/** What the loader does with a corrupt record (CRC mismatch when checking, undecodable payload). */
public enum ErrorPolicy {
    /** Fail the iteration: the trainer's {@code next()} throws a {@link io.pinshard.loader.LoaderException} naming the record. */
    FAIL,
    /**
     * Replace the record with another one chosen deterministically from (seed, epoch, record, attempt)
     * and count it in {@link io.pinshard.loader.LoaderStats#skippedRecords()}.
     */
    SKIP
}
