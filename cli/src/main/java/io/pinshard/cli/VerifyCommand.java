package io.pinshard.cli;

import io.pinshard.format.ShardFormatException;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.reader.Problem;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code pinshard verify DIR}: check every byte. Exit 0 intact, 1 corrupt, 2 usage or not a dataset. */
@Command(name = "verify", mixinStandardHelpOptions = true,
    description = "Check every byte of a dataset. Exit 0 when intact, 1 when anything is corrupt, "
        + "2 for usage errors or a path that is not a dataset.")
final class VerifyCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DIR", description = "Dataset directory (holds manifest.json).")
    Path directory;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<Problem> problems;
        try {
            problems = new DatasetVerifier().verify(directory);
        } catch (ShardFormatException e) {
            err.println("pinshard verify: " + e.getMessage());
            return PinshardCommand.EXIT_USAGE;
        }
        if (problems.isEmpty()) {
            out.println(directory + ": intact");
            out.flush();
            return 0;
        }
        for (Problem problem : problems) {
            out.println(problem);
        }
        out.println(directory + ": " + problems.size() + " problem(s)");
        out.flush();
        return 1;
    }
}
