package io.pinshard.cli;

import java.util.Comparator;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Writes {@code python/pinshard/_serve_options.py}: the options of {@code pinshard serve} as picocli defines them
 * ({@link ServeCommand} and its mixins), each as the Python keyword {@code pinshard.serve(...)},
 * {@code Server(...)} and {@code PinshardDataset(server_options=...)} take (the long name without its dashes, "-" as
 * "_") with its option name and whether it takes a value (a flag does not). So Python accepts exactly what the CLI
 * does; {@link ServeOptionsPythonTest} fails when the committed file differs and says how to regenerate it.
 */
final class ServeOptionsPython {
    private ServeOptionsPython() {
    }

    /** The text of {@code _serve_options.py}. */
    static String text() {
        StringBuilder out = new StringBuilder();
        out.append("\"\"\"The options of `pinshard serve`: keyword -> (option, takes a value; a flag does not). GENERATED from the CLI's\n")
            .append("own definitions (io.pinshard.cli.ServeCommand and its mixins, picocli) by ServeOptionsPython (cli's tests): do\n")
            .append("not edit; ServeOptionsPythonTest fails when this file differs from what the generator writes, and says how to\n")
            .append("regenerate it.\n\"\"\"\n\n")
            .append("from typing import Dict, Tuple\n\n")
            .append("SERVE_OPTIONS: Dict[str, Tuple[str, bool]] = {\n");
        new CommandLine(new ServeCommand()).getCommandSpec().options().stream()
            .filter(option -> !option.usageHelp() && !option.versionHelp())
            .sorted(Comparator.comparing(OptionSpec::longestName))
            .forEach(option -> out.append("    \"").append(keyword(option)).append("\": (\"")
                .append(option.longestName()).append("\", ").append(option.arity().max() > 0 ? "True" : "False")
                .append("),\n"));
        return out.append("}\n").toString();
    }

    private static String keyword(OptionSpec option) {
        return option.longestName().replaceFirst("^-+", "").replace('-', '_').toLowerCase(Locale.ROOT);
    }
}
