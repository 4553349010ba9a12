package io.pinshard.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The class list a subcommand's first run through the {@code ./pinshard} launcher records
 * ({@code -Dpinshard.cds.classList=FILE}, the JVM's {@code -XX:DumpLoadedClassList=FILE}), from which a later start
 * dumps the subcommand's class-data-sharing archive. A run whose command failed (a usage error, a missing dataset)
 * loaded the error path's classes, not the work's, so it leaves {@code FILE.discard} beside it and the next start
 * drops the list instead of putting it into place. A run stopped by a signal keeps its list: the JVM is shutting
 * down, and whatever failed in the command's threads then (a library adding a shutdown hook: "Shutdown in progress")
 * is the stop, not an error path. The JVM puts its list into place itself as it exits (a command's end, a signal's
 * stop: {@link #putClassListInPlaceAtExit}), so a stopped server leaves no {@code LIST.PID.tmp} behind; the launcher
 * does it for a run killed where no hook runs.
 */
final class StartupArchive {
    static final String CLASS_LIST_PROPERTY = "pinshard.cds.classList";

    private StartupArchive() {
    }

    /**
     * At the JVM's exit, this run's class list {@code NAME.classlist.PID.tmp} becomes {@code NAME.classlist} (the
     * launcher's next start dumps the archive from it), or goes, with its {@code .discard} marker, when the command
     * failed; an empty list (nothing loaded yet) goes too. A rename: the JVM may still append to it, by its inode.
     */
    static void putClassListInPlaceAtExit() {
        String dump = System.getProperty(CLASS_LIST_PROPERTY);
        if (dump == null || !dump.endsWith(".tmp")) {
            return;
        }
        Path list = Path.of(dump);
        Path discard = Path.of(dump + ".discard");
        String name = list.getFileName().toString();
        Path finished = list.resolveSibling(name.substring(0, name.lastIndexOf('.', name.length() - 5)));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                if (Files.exists(discard) || Files.size(list) == 0) {
                    Files.deleteIfExists(list);
                    Files.deleteIfExists(discard);
                } else {
                    Files.move(list, finished, StandardCopyOption.REPLACE_EXISTING);
                }
            } catch (IOException | RuntimeException e) {
                // Left for the launcher's next start, which does the same.
            }
        }, "pinshard-class-list"));
    }

    /** Marks this run's class list for discarding when {@code status} says the command failed. */
    static void discardUnlessSucceeded(int status) {
        String dump = System.getProperty(CLASS_LIST_PROPERTY);
        if (status == 0 || dump == null || dump.isEmpty() || shuttingDown()) {
            return;
        }
        try {
            Files.write(Path.of(dump + ".discard"), new byte[0]);
        } catch (IOException | RuntimeException e) {
            // No marker: the list is kept; its archive would only start this command less quickly.
        }
    }

    /**
     * Whether the JVM is running its shutdown hooks (a SIGTERM, SIGINT or {@code System.exit} elsewhere): the only
     * question the JDK answers about it is whether a hook can still be added.
     */
    static boolean shuttingDown() {
        Thread probe = new Thread(() -> { }, "pinshard-shutdown-probe");
        try {
            Runtime.getRuntime().addShutdownHook(probe);
        } catch (IllegalStateException shutdownInProgress) {
            return true;
        }
        Runtime.getRuntime().removeShutdownHook(probe);
        return false;
    }
}
