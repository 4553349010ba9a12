package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.testkit.GeneratedFile;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/** The committed python/pinshard/_serve_options.py is exactly what {@link ServeOptionsPython} generates from the CLI. */
class ServeOptionsPythonTest {
    static final GeneratedFile OPTIONS = new GeneratedFile("python/pinshard/_serve_options.py",
        "ServeOptionsPython (from ServeCommand's options)", "cli", "ServeOptionsPythonTest",
        "pinshard.regenerateServeOptions");

    @Test
    void committedOptionsAreTheGeneratedOnes() throws Exception {
        OPTIONS.assertCommitted(ServeOptionsPython.text());
    }

    @Test
    void valuesAndFlagsAreTold() {
        String text = ServeOptionsPython.text();
        assertTrue(text.contains("\"batch\": (\"--batch\", True)"), text);
        assertTrue(text.contains("\"drop_last\": (\"--drop-last\", False)"), text);
        assertTrue(text.contains("\"eval_crop_fraction\": (\"--eval-crop-fraction\", True)"), text);
        assertTrue(!text.contains("\"help\""), "help and version are not serve options: " + text);
    }

    @Test
    void theOptionsAreGroupedAsTheLoaderReadsThemEachOnce() {
        CommandSpec serve = new CommandLine(new ServeCommand()).getCommandSpec();
        Map<String, List<OptionSpec>> groups = ServeOptionsPython.groups(serve);
        assertEquals(List.of("sampling", "augment", "ring", "policy", "location", "serve"), List.copyOf(groups.keySet()));
        List<String> grouped = groups.values().stream().flatMap(List::stream).map(OptionSpec::longestName).sorted()
            .toList();
        List<String> all = names(ServeOptionsPython.served(serve));
        assertEquals(all, grouped, "every serve option in exactly one group");
        assertEquals(List.of("--prefetch", "--workers"), names(groups.get("ring")));
        assertEquals(List.of("--check-crc", "--crc"), names(groups.get("policy")));
        assertTrue(names(groups.get("sampling")).containsAll(List.of("--batch", "--seed", "--world", "--interleave")));
        assertTrue(names(groups.get("augment")).containsAll(List.of("--crop", "--dtype", "--fields", "--boxes")));
    }

    private static List<String> names(List<OptionSpec> options) {
        return options.stream().map(OptionSpec::longestName).sorted().toList();
    }
}
