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
 * <p>A clean stop unlinks the ring itself ({@link RingFile#close}), then says "done" down the pipe and closes it: the
 * child exits without looking again (a new server's file at the same path may by then have the old inode number). When the child cannot start (no {@code /bin/sh}), a warning says so and the sweep at the next
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
        // Returns at end of file (this JVM's end), or exits at "done": a clean stop removed the ring itself, and a
        // later check could take a new server's file for this one (a freed inode is soon reused at the same path).
        "while read -r line; do [ \"$line\" = done ] && exit 0; done",
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

    /**
     * Called by a live JVM once the ring's names are removed (or were never made): tells the reaper it is done and
     * closes the pipe, so it exits without looking at the names again. Before, it looked after the stop: a server
     * started at the same path in between (the next round of a loop, a restart) could get the freed inode number, and
     * the reaper removed that server's ring as if it were its own (seen in OpenCloseLeakTest's 7th round).
     */
    @Override
    public void close() {
        try {
            if (!watching) {
                // Closed before any file was watched (the create failed): an identity that matches nothing.
                process.getOutputStream().write("none\n".getBytes(StandardCharsets.US_ASCII));
            }
            process.getOutputStream().write("done\n".getBytes(StandardCharsets.US_ASCII));
            process.getOutputStream().close();
        } catch (IOException ignored) {
            // the reaper is gone already: nothing was left for it to do
        }
    }
}
