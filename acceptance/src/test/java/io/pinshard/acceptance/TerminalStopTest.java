package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./pinshard} on a terminal (a pseudo-terminal of 80 columns, acceptance/src/test/python/pty_run.py), stopped
 * as a terminal stops it: once the progress bar shows a finished image, SIGINT to the whole process group, the JVM
 * and the launcher's stderr filter alike (Ctrl-C). Convert's notice that it was stopped and that the same command
 * resumes must reach the terminal (the filter died first, and the notice with it).
 */
@Tag("process")
class TerminalStopTest {
    @TempDir
    Path temp;

    @Test
    void ctrlCToTheProcessGroupKeepsConvertsStopNotice() throws Exception {
        assumeTrue(Files.isExecutable(PseudoTerminal.PYTHON), PseudoTerminal.PYTHON + " runs the pseudo-terminal");
        Path photos = ImageFolders.largeUniformPngs(temp.resolve("photos"), 6, 4000, 3000, "cat", "dog");
        Path out = temp.resolve("data");
        Launcher.Result stopped = PseudoTerminal.pinshard(temp, 80, List.of("--signal", "INT", "--after",
            "[1-9][0-9]*/12 img"), "convert", photos.toString(), "-o", out.toString(), "--workers", "1");
        assertEquals(130, stopped.status(), stopped.toString());
        assertTrue(stopped.stdout().contains("pinshard convert: stopped by a signal; " + out), stopped.toString());
        assertTrue(stopped.stdout().contains("run the same command again to resume"), stopped.toString());
    }
}
