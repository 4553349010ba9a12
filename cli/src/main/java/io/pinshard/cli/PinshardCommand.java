package io.pinshard.cli;

import io.pinshard.baseline.inputs.ImageCollection;
import io.pinshard.format.DatasetBusyException;
import io.pinshard.format.Printable;
import io.pinshard.format.ShardFormatException;
import io.pinshard.serve.StaleRings;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code pinshard} command: one subcommand per job. */
@Command(name = "pinshard", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
    description = "Pre-resized image shards and a zero-heap loader that keeps GPUs fed.")
public final class PinshardCommand implements Runnable {
    /** Exit status for usage errors and paths that are not datasets. */
    public static final int EXIT_USAGE = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Where JavaCPP unpacks the native libraries (OpenCV, OpenBLAS, CUDA bindings): javacpp/ in the cache folder. */
    static final String JAVACPP_CACHE = "org.bytedeco.javacpp.cachedir";

    /** The subcommands, in the order the usage lists them. */
    static final List<Class<?>> SUBCOMMANDS = List.of(InspectCommand.class, VerifyCommand.class, ConvertCommand.class,
        MergeCommand.class, PushCommand.class, PullCommand.class, DumpCommand.class, BenchCommand.class, ServeCommand.class,
        ReportCommand.class, PreviewCommand.class, DemoCommand.class, CommandLine.HelpCommand.class);

    public static void main(String[] args) {
        StaleRings.sweepDefaults(); // rings of servers killed where no reaper could remove them
        StartupArchive.putClassListInPlaceAtExit();
        if (System.getProperty(JAVACPP_CACHE) == null) {  // JavaCPP's default is user.home's ~/.javacpp/cache
            System.setProperty(JAVACPP_CACHE, ImageCollection.defaultCacheRoot().resolve("javacpp").toString());
        }
        int status = newCommandLine(args.length > 0 ? args[0] : null).execute(args);
        StartupArchive.discardUnlessSucceeded(status);
        System.exit(status);
    }

    /** Runs the command line without exiting, for tests. */
    public static int run(String... args) {
        return newCommandLine().execute(args);
    }

    public static CommandLine newCommandLine() {
        return newCommandLine(null);
    }

    /**
     * The command line with every subcommand, or only the one {@code first} names (the first argument of
     * {@code main}): picocli's reflection over all of them is about a third of a CPU second of each run. Any other
     * first argument (an option, {@code help}, a typo) gets them all, for the usage and its suggestions.
     */
    static CommandLine newCommandLine(String first) {
        Class<?> only = null;
        for (Class<?> subcommand : SUBCOMMANDS) {
            String name = subcommand.getAnnotation(Command.class).name();
            if (name.equals(first) && subcommand != CommandLine.HelpCommand.class) {
                only = subcommand;
            }
        }
        CommandLine line = new CommandLine(new PinshardCommand());
        for (Class<?> subcommand : SUBCOMMANDS) {
            if (only == null || subcommand == only) {
                line.addSubcommand(subcommand);
            }
        }
        String cache = ImageCollection.defaultCacheRoot().toString().replace("%", "%%");
        line.getCommandSpec().usageMessage().footer("%nCaches: " + cache + " (class-data archives cds/, s3:// shards "
            + "s3/, native libraries javacpp/, the demo's demo/ and photos/): $XDG_CACHE_HOME/pinshard, else "
            + "$HOME/.cache/pinshard, for the launcher and the JVM alike. Each rebuilds itself when missing: `rm -rf "
            + cache + "` clears them all.");
        return line
            .setCaseInsensitiveEnumValuesAllowed(true)
            .setExecutionExceptionHandler((e, commandLine, parseResult) -> {
                String command = commandLine.getParent() == null ? "pinshard" : "pinshard " + commandLine.getCommandName();
                // A shard format error's message names its file escaped already; any other is escaped here.
                String message = e instanceof ShardFormatException format ? format.getMessage() + ConvertFirstHint.of(format)
                    : Printable.escape(e.getMessage());
                if (StartupArchive.shuttingDown()) {
                    // Stopped by a signal: what failed as the JVM went down is the stop itself, not the user's error.
                    commandLine.getErr().println(command + ": stopped (" + message + ")");
                    commandLine.getErr().flush();
                    return 1;
                }
                commandLine.getErr().println(command + ": " + message);
                commandLine.getErr().flush();
                return exitCode(e);
            });
    }

    /**
     * The exit status of a command that failed with {@code e}, the one place that maps errors to statuses (the
     * commands throw, this handler prints and decides): a command line that asks for what cannot be done as given
     * ({@link IllegalArgumentException}), names no dataset or a dataset directory another writer holds
     * ({@link DatasetBusyException}) is a usage error, {@link #EXIT_USAGE}; anything else,
     * a dataset that is there but broken included, is a failure, 1.
     */
    static int exitCode(Exception e) {
        if (e instanceof DatasetBusyException) {
            return EXIT_USAGE; // another writer holds the directory: nothing was done, as for a usage error
        }
        if (e instanceof ShardFormatException format) {
            return format.kind() == ShardFormatException.Kind.NOT_A_DATASET ? EXIT_USAGE : 1;
        }
        return e instanceof IllegalArgumentException ? EXIT_USAGE : 1;
    }
}
