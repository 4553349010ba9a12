package io.pinshard.cli;

import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Writes {@code python/pinshard/_serve_options.py}: the options of {@code pinshard serve} as picocli defines them
 * ({@link ServeCommand} and its mixins), each as the Python keyword {@code pinshard.serve(...)},
 * {@code Server(...)} and {@code PinshardDataset(server_options=...)} take (the long name without its dashes, "-" as
 * "_") with its option name and whether it takes a value (a flag does not), and the keywords again by group: the
 * loader's (sampling, augment, ring, policy, one mixin each), the dataset location's, the server's own. So Python
 * accepts exactly what the CLI does; {@link ServeOptionsPythonTest} fails when the committed file differs and says
 * how to regenerate it.
 */
final class ServeOptionsPython {
    private ServeOptionsPython() {
    }

    /** The text of {@code _serve_options.py}. */
    static String text() {
        StringBuilder out = new StringBuilder();
        out.append("\"\"\"The options of `pinshard serve`: keyword -> (option, takes a value; a flag does not), and the same keywords\n")
            .append("by group. GENERATED from the CLI's own definitions (io.pinshard.cli.ServeCommand and its mixins, picocli) by\n")
            .append("ServeOptionsPython (cli's tests): do not edit; ServeOptionsPythonTest fails when this file differs from what the\n")
            .append("generator writes, and says how to regenerate it.\n\"\"\"\n\n")
            .append("from typing import Dict, Tuple\n\n")
            .append("SERVE_OPTIONS: Dict[str, Tuple[str, bool]] = {\n");
        CommandSpec serve = new CommandLine(new ServeCommand()).getCommandSpec();
        served(serve).stream()
            .sorted(Comparator.comparing(OptionSpec::longestName))
            .forEach(option -> out.append("    \"").append(keyword(option)).append("\": (\"")
                .append(option.longestName()).append("\", ").append(option.arity().max() > 0 ? "True" : "False")
                .append("),\n"));
        out.append("}\n\n")
            .append("# The keywords by what reads them: first the loader's groups, as io.pinshard.loader.options splits\n")
            .append("# LoaderOptions by the stage that reads each (sampling, augment, ring, policy), then the other mixins of\n")
            .append("# `pinshard serve` (where the dataset is) and, last, the server's own options.\n")
            .append("SERVE_OPTION_GROUPS: Dict[str, Tuple[str, ...]] = {\n");
        groups(serve).forEach((group, options) -> {
            out.append("    \"").append(group).append("\": (\n");
            options.stream().map(ServeOptionsPython::keyword).sorted()
                .forEach(keyword -> out.append("        \"").append(keyword).append("\",\n"));
            out.append("    ),\n");
        });
        return out.append("}\n").toString();
    }

    /**
     * {@code serve}'s options by group, in this order: one per mixin of {@link LoaderOptionsMixin} (named as its field,
     * which is the name of the {@code LoaderOptions} group it fills), one per other mixin of {@link ServeCommand}
     * (named as its field), then "serve" for the options the command declares itself.
     */
    static Map<String, List<OptionSpec>> groups(CommandSpec serve) {
        Map<String, CommandSpec> groupSpecs = new LinkedHashMap<>();
        serve.mixins().values().stream().filter(mixin -> mixin.userObject() instanceof LoaderOptionsMixin)
            .forEach(loader -> groupSpecs.putAll(loader.mixins()));
        serve.mixins().forEach((name, mixin) -> {
            if (!(mixin.userObject() instanceof LoaderOptionsMixin)) {
                groupSpecs.put(name, mixin);
            }
        });
        Map<String, List<OptionSpec>> groups = new LinkedHashMap<>();
        Set<String> grouped = new HashSet<>();
        groupSpecs.forEach((name, mixin) -> {
            List<OptionSpec> options = served(mixin);
            if (!options.isEmpty()) { // picocli's standard help mixin holds help and version only
                groups.put(name, options);
                options.forEach(option -> grouped.add(option.longestName()));
            }
        });
        groups.put("serve", served(serve).stream().filter(option -> !grouped.contains(option.longestName())).toList());
        return groups;
    }

    /** The options of {@code spec} that serve takes from Python: all but help and version. */
    static List<OptionSpec> served(CommandSpec spec) {
        return spec.options().stream().filter(option -> !option.usageHelp() && !option.versionHelp()).toList();
    }

    private static String keyword(OptionSpec option) {
        return option.longestName().replaceFirst("^-+", "").replace('-', '_').toLowerCase(Locale.ROOT);
    }
}
