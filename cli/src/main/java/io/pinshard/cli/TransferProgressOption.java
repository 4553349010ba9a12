package io.pinshard.cli;

import java.time.Duration;
import picocli.CommandLine.Option;

/** {@code --progress bar|log|none} for push and pull, as convert has it. */
final class TransferProgressOption {
    @Option(names = "--progress", paramLabel = "MODE", description = "bar, log or none (default: bar on a terminal, "
        + "else a log line every 10 s).")
    ConvertProgressReporter.Mode progress;

    ConvertProgressReporter.Mode mode() {
        return progress != null ? progress : ConvertProgressReporter.defaultMode();
    }

    /** A reporter for {@code verb} on stderr. */
    static TransferProgressReporter reporter(String verb, ConvertProgressReporter.Mode mode) {
        return new TransferProgressReporter(verb, mode, System.err, Duration.ofSeconds(10));
    }
}
