package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@org.junit.jupiter.api.Tag("process")
class LauncherVersionTest {
    @TempDir
    Path temp;

    @Test
    void versionRunsThroughTheLauncherWithoutBuilding() throws Exception {
        Launcher.Result result = Launcher.run(Launcher.pinshard(temp, "--version"), temp.resolve("logs"), 60);
        assertEquals(0, result.status(), result.toString());
        assertTrue(result.stdout().contains("pinshard"), result.toString());
        assertTrue(!result.stderr().contains("building"), "the reactor packaged the jar already: " + result);
    }
}
