package io.pinshard.writer.convert;

/** Receives progress while a conversion runs; called from the committing thread only, in input order. */
public interface ConvertProgress {
    ConvertProgress NONE = new ConvertProgress() {
    };

    /** Before the first input: how many inputs this run covers and how many an earlier run already finished. */
    default void started(long inputs, long alreadyDone) {
    }

    /** After each input is committed (written or rejected). */
    default void committed(long inputBytes, long outputBytes, boolean rejected) {
    }
}
