package io.pinshard.serve;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * Whether a process still runs, zombies counted as gone. {@link ProcessHandle#isAlive()} is {@code kill(pid, 0)},
 * true for a zombie: a killed owner or client whose parent has not reaped it yet (a supervisor busy elsewhere, a
 * test harness that waits) would otherwise keep a server serving a dead process for as long as nobody reaps it.
 * Linux's {@code /proc/PID/stat} says the state; without {@code /proc} the handle's answer stands.
 */
final class ProcessLiveness {
    /** "PID (comm) S ...": comm may hold blanks and parentheses, so the state follows the last ')'. */
    private final ByteBuffer stat = ByteBuffer.allocateDirect(512);

    /** Whether {@code process} runs and is not a zombie (one instance per thread: it reuses its buffer). */
    boolean running(Optional<ProcessHandle> process) {
        if (process.isEmpty() || !process.get().isAlive()) {
            return false;
        }
        stat.clear();
        try (FileChannel in = FileChannel.open(Path.of("/proc", Long.toString(process.get().pid()), "stat"),
            StandardOpenOption.READ)) {
            while (stat.hasRemaining() && in.read(stat) > 0) {
                // the state is in the first few dozen bytes; 512 holds them whatever comm is
            }
        } catch (IOException e) {
            return process.get().isAlive(); // no /proc, or the process went meanwhile
        }
        for (int i = stat.position() - 1; i >= 0; i--) {
            if (stat.get(i) == ')') {
                byte state = i + 2 < stat.position() ? stat.get(i + 2) : 0;
                return state != 'Z' && state != 'X';
            }
        }
        return true;
    }
}
