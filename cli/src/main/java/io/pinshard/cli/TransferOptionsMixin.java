package io.pinshard.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.function.Function;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What push and pull share: the S3 connection options, {@code --progress bar|log|none} (as convert has it), and the
 * run of a transfer under its progress reporter and stop notice ({@link #run}).
 */
final class TransferOptionsMixin {
    @Mixin
    S3OptionsMixin s3 = new S3OptionsMixin();

    @Option(names = "--progress", paramLabel = "MODE", description = "bar, log or none (default: bar on a terminal, "
        + "else a log line every 10 s).")
    ConvertProgressReporter.Mode progress;

    /** The command this is mixed into: where its report goes ({@link #out}, {@link #err}). */
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    PrintWriter out() {
        return command.commandLine().getOut();
    }

    PrintWriter err() {
        return command.commandLine().getErr();
    }

    ConvertProgressReporter.Mode mode() {
        return progress != null ? progress : ConvertProgressReporter.defaultMode();
    }

    /**
     * Runs a push or a pull: {@code transfer} with a reporter in this mode for {@code command}, and the notice a stop
     * signal prints (how far it got, counting bytes {@code moved}, e.g. "sent"; then {@code state}, what a rerun does).
     */
    <R> R run(String command, String moved, String state, Function<TransferProgressReporter, R> transfer) {
        try (TransferProgressReporter reporter = reporter(command, mode());
             StopNotice stop = StopNotice.arm(command, () -> reporter.done(moved), state)) {
            return transfer.apply(reporter);
        }
    }

    /** A reporter for {@code verb} on stderr. */
    static TransferProgressReporter reporter(String verb, ConvertProgressReporter.Mode mode) {
        return new TransferProgressReporter(verb, mode, System.err, Duration.ofSeconds(10));
    }
}
