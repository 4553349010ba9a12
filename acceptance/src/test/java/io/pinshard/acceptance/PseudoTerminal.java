package io.pinshard.acceptance;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** {@code ./pinshard ARGS} on a pseudo-terminal (acceptance/src/test/python/pty_run.py), as a user's terminal runs it. */
final class PseudoTerminal {
    static final Path PYTHON = Path.of("/usr/bin/python3");

    private PseudoTerminal() {
    }

    /**
     * Runs it with HOME in {@code temp}, {@code columns} wide, with pty_run.py's {@code options} (--signal, --after);
     * the result's stdout is what the terminal showed, carriage returns and escapes included.
     */
    static Launcher.Result pinshard(Path temp, int columns, List<String> options, String... args) throws Exception {
        return run(temp, columns, options, Launcher.pinshard(Files.createDirectories(temp.resolve("home")), args));
    }

    /** As above, the command and environment {@code launcher}'s ({@link Launcher#onStore} and such). */
    static Launcher.Result run(Path temp, int columns, List<String> options, ProcessBuilder launcher)
        throws Exception {
        List<String> command = new ArrayList<>(List.of(PYTHON.toString(),
            Launcher.repo().resolve("acceptance/src/test/python/pty_run.py").toString(), "--columns",
            Integer.toString(columns)));
        command.addAll(options);
        command.add("--");
        command.addAll(launcher.command());
        launcher.command(command);
        return Launcher.run(launcher, temp.resolve("logs"), 120);
    }
}
