package io.pinshard.serve;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the server's ring file when the server dies, however it dies: {@code kill -9} included, which no code in
 * the dying JVM survives to clean up after. A small {@code /bin/sh} child reads a pipe whose only writer is this
 * JVM; the kernel closes that pipe when the JVM ends, for any reason, and the child then unlinks each of the ring's
 * names that still names the ring's file (same device and inode: a new server's file at the same path is never
 * touched), and exits. It ignores SIGINT, SIGTERM and SIGHUP, so a Ctrl-C or a signal to the process group leaves it
 * to do its job; its output goes nowhere, so it holds no pipe of the caller's open.
 *
 * <p>A clean stop unlinks the ring itself ({@link RingFile#close}) before it closes the pipe: the child then finds
 * nothing to remove. When the child cannot start (no {@code /bin/sh}), a warning says so and the sweep at the next
 * start ({@link StaleRings}) is the only cleanup of a killed server's ring. docs/RING.md, "Liveness and cleanup".
 */
final class RingReaper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RingReaper.class);
    private static final String SCRIPT = String.join("\n",
        "trap '' INT TERM HUP",
        "file=$1; shift",
        "while read -r _; do :; done", // returns at end of file: this JVM's end
        "for name in \"$@\"; do",
        "  [ \"$(stat -c %d:%i -- \"$name\" 2>/dev/null)\" = \"$file\" ] && rm -f -- \"$name\"",
        "done",
        "exit 0");

    private final Process process;

    private RingReaper(Process process) {
        this.process = process;
    }

    /** Starts the reaper of the file {@code names} name (the first of them must exist); null when it cannot start. */
    static RingReaper start(Path... names) {
        try {
            long device = (Long) Files.getAttribute(names[0], "unix:dev", LinkOption.NOFOLLOW_LINKS);
            long inode = (Long) Files.getAttribute(names[0], "unix:ino", LinkOption.NOFOLLOW_LINKS);
            List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", SCRIPT, "pinshard-ring-reaper",
                Long.toUnsignedString(device) + ":" + Long.toUnsignedString(inode)));
            for (Path name : names) {
                command.add(name.toAbsolutePath().toString());
            }
            Process process = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            return new RingReaper(process);
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot start the reaper of ring {} ({}): if this server is killed, its ring stays until the "
                + "next pinshard start removes it", names[0], e.toString());
            return null;
        }
    }

    /** The reaper's pid (tests). */
    long pid() {
        return process.pid();
    }

    /** Closes the pipe: the reaper removes what is left of the ring (nothing, after a clean stop) and exits. */
    @Override
    public void close() {
        try {
            process.getOutputStream().close();
        } catch (IOException ignored) {
            // the reaper is gone already: nothing was left for it to do
        }
    }
}
