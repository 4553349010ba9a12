package io.pinshard.writer.convert;

import java.nio.file.Path;

/**
 * The output directory holds what this run must not overwrite. The message says what is there; {@link #holds()}
 * lets a caller add the remedy in its own terms (the CLI names its flags).
 */
public final class OutputTakenException extends ConvertException {
    /** What the output directory holds. */
    public enum Holding {
        /** A finished dataset of other inputs or options (or not written by convert). */
        ANOTHER_DATASET,
        /** An unfinished conversion of other inputs or options. */
        ANOTHER_CONVERSION,
        /** Files that are not this tool's. */
        OTHER_FILES,
        /** This conversion's dataset (or unfinished conversion) of inputs that changed since: the message names one. */
        CHANGED_INPUTS
    }

    private final Path output;
    private final Holding holds;

    OutputTakenException(Path output, Holding holds, String message) {
        super(message, null);
        this.output = output;
        this.holds = holds;
    }

    public Path output() {
        return output;
    }

    public Holding holds() {
        return holds;
    }
}
