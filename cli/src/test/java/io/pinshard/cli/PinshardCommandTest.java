package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** main builds only the subcommand it runs (start-up), with the same options and usage as the full command line. */
class PinshardCommandTest {
    @Test
    void aSubcommandNameBuildsThatSubcommandAloneWithTheSameUsage() {
        CommandLine all = PinshardCommand.newCommandLine();
        assertEquals(List.of("inspect", "verify", "convert", "merge", "push", "pull", "dump", "bench", "serve", "report", "preview", "demo", "help"),
            List.copyOf(all.getSubcommands().keySet()));
        for (String name : List.of("convert", "push", "bench", "verify")) {
            CommandLine one = PinshardCommand.newCommandLine(name);
            assertEquals(List.of(name), List.copyOf(one.getSubcommands().keySet()));
            assertEquals(all.getSubcommands().get(name).getUsageMessage(), one.getSubcommands().get(name).getUsageMessage());
        }
        for (String first : List.of("help", "--help", "--version", "convrt")) {
            assertEquals(all.getSubcommands().keySet(), PinshardCommand.newCommandLine(first).getSubcommands().keySet(), first);
        }
        assertEquals(all.getSubcommands().keySet(), PinshardCommand.newCommandLine(null).getSubcommands().keySet());
    }

    /** picocli formats descriptions with String.format: a lone '%' makes it warn on stderr and print the text raw. */
    @Test
    void everyUsageFormatsWithoutAWarning() {
        java.io.PrintStream stderr = System.err;
        java.io.ByteArrayOutputStream warnings = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(warnings, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            PinshardCommand.newCommandLine().getSubcommands().values().forEach(CommandLine::getUsageMessage);
        } finally {
            System.setErr(stderr);
        }
        assertEquals("", warnings.toString(java.nio.charset.StandardCharsets.UTF_8));
    }
}
