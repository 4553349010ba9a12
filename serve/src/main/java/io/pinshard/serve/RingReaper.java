package io.pinshard.serve;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
        "temp=$1",
        // The file's identity comes down the pipe once the file exists; an end of file before it means this JVM died
        // between creating the temporary name (its pid is in it: no one else's) and saying what it is.
        "if ! read -r file; then rm -f -- \"$temp\"; exit 0; fi",
        "while read -r _; do :; done", // returns at end of file: this JVM's end
        "for name in \"$@\"; do",
        "  [ \"$(stat -c %d:%i -- \"$name\" 2>/dev/null)\" = \"$file\" ] && rm -f -- \"$name\"",
        "done",
        "exit 0");

    private final Process process;
    private boolean watching;

    private RingReaper(Process process) {
        this.process = process;
    }

    /**
     * Starts the reaper of {@code names} before the file exists (the first name is the temporary one, whose name holds
     * this JVM's pid), so that no moment is left in which a kill leaves the file behind; {@link #watch(Path)} tells
     * it which file they name once it is created. Null when it cannot start.
     */
    static RingReaper start(Path... names) {
        try {
            List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", SCRIPT, "pinshard-ring-reaper"));
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

    /**
     * Tells the reaper the device and inode of {@code file}, now created: from here on it removes a name only while
     * that name is still this file (a new server's file at the same path is never touched).
     */
    void watch(Path file) throws IOException {
        long device = (Long) Files.getAttribute(file, "unix:dev", LinkOption.NOFOLLOW_LINKS);
        long inode = (Long) Files.getAttribute(file, "unix:ino", LinkOption.NOFOLLOW_LINKS);
        String line = Long.toUnsignedString(device) + ":" + Long.toUnsignedString(inode) + "\n";
        watching = true;
        try {
            process.getOutputStream().write(line.getBytes(StandardCharsets.US_ASCII));
            process.getOutputStream().flush();
        } catch (IOException e) {
            LOG.warn("the reaper of ring {} is gone ({}): if this server is killed, its ring stays until the next "
                + "pinshard start removes it", file, e.toString());
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
            if (!watching) {
                // Closed by a live JVM before any file was watched (the create failed): an identity that matches
                // nothing, so the end of file below removes no name.
                process.getOutputStream().write("none\n".getBytes(StandardCharsets.US_ASCII));
            }
            process.getOutputStream().close();
        } catch (IOException ignored) {
            // the reaper is gone already: nothing was left for it to do
        }
    }
}
