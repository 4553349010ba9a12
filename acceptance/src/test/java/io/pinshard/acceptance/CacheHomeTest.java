package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One cache folder for the launcher and the JVM: with HOME and XDG_CACHE_HOME set elsewhere (a container, an HPC
 * job, {@code sudo -E}), the launcher's class-data archives and the JVM's caches (JavaCPP's native libraries, which
 * went to the passwd entry's home) all land in {@code $XDG_CACHE_HOME/pinshard}, and {@code pinshard --help} says
 * where that is and how to clear it.
 */
@Tag("process")
class CacheHomeTest {
    @TempDir
    Path temp;

    @Test
    void launcherAndJvmShareXdgCacheHome() throws Exception {
        Path home = Files.createDirectories(temp.resolve("home"));
        Path xdg = temp.resolve("xdg");
        Path cache = xdg.resolve("pinshard");

        Launcher.Result help = run(home, xdg, "--help");
        assertEquals(0, help.status(), help.toString());
        String usage = help.stdout().replaceAll("\\s+", " ");  // picocli wraps the footer at 80 columns
        assertTrue(usage.contains("Caches: " + cache + " ("), help.toString());
        assertTrue(usage.contains("`rm -rf " + cache + "` clears them all"), help.toString());

        Path photos = ImageFolders.classFolders(temp.resolve("photos"), 2, "cat", "dog");
        Launcher.Result convert = run(home, xdg, "convert", photos.toString(), "-o", temp.resolve("data").toString(),
            "--progress", "none");
        assertEquals(0, convert.status(), convert.toString());
        assertTrue(Files.isDirectory(cache.resolve("cds")), "the launcher's archives: " + Processes.names(cache));
        assertTrue(Files.isDirectory(cache.resolve("javacpp")), "the JVM's native libraries: " + Processes.names(cache));
        assertFalse(Files.exists(home.resolve(".cache")), "nothing under HOME's .cache");
        assertFalse(Files.exists(home.resolve(".javacpp")), "nothing under HOME's .javacpp");
    }

    private Launcher.Result run(Path home, Path xdg, String... args) throws Exception {
        ProcessBuilder builder = Launcher.pinshard(home, args);
        builder.environment().put("XDG_CACHE_HOME", xdg.toString());
        return Launcher.run(builder, temp.resolve("logs"), 120);
    }
}
