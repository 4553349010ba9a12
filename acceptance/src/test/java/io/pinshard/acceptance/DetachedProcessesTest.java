package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Launcher#endDetachedProcessesUnder} ends the processes naming the folder, and only those. */
@Tag("process")
class DetachedProcessesTest {
    @TempDir
    Path temp;

    @Test
    void endsTheProcessesThatNameTheFolderAndNoOther() throws Exception {
        // setsid: detached as the launcher's archive dump is (its own session, no pipe to the test)
        Process named = new ProcessBuilder("setsid", "--wait", "/usr/bin/python3", "-c",
                "import time; time.sleep(300)", temp.resolve("cache").toString())
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Process other = new ProcessBuilder("sleep", "300").redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            // the named process may not have exec'd yet: wait until its command line names the folder
            while (!named.info().commandLine().map(line -> line.contains(temp.toString())).orElse(false)) {
                assertTrue(named.isAlive(), "the detached process ended on its own");
                Thread.onSpinWait();
            }
            Launcher.endDetachedProcessesUnder(temp);
            assertFalse(named.isAlive(), "the process naming the folder still runs");
            assertTrue(other.isAlive(), "a process not naming the folder was ended");
        } finally {
            named.destroyForcibly();
            other.destroyForcibly();
        }
    }
}
