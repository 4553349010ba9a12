package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./pinshard convert} over inputs that are all rejected: a dataset of 0 records is no success (the loader
 * refuses it). Exit 2, as for inputs with nothing to convert, with the first three reasons on stderr, each naming
 * its file, as python's {@code pinshard.write} raises WriteError; a rerun that finds that dataset complete says the
 * same. One good image among them is a conversion as before: exit 0, the rejection listed.
 */
@Tag("process")
class ConvertEveryInputRejectedThroughLauncherTest {
    @TempDir
    Path temp;

    private Launcher.Result convert(Path input, Path out) throws Exception {
        return Launcher.run(Launcher.pinshard(temp, "convert", input.toString(), "-o", out.toString(), "--codec", "raw",
            "--progress", "none"), temp.resolve("logs"), 120);
    }

    private static void broken(Path file) throws Exception {
        Files.createDirectories(file.getParent());
        Files.write(file, "not an image at all".getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void everyInputRejectedExitsTwoNamingTheFirstReasonsAndSoDoesTheRerun() throws Exception {
        Path photos = temp.resolve("photos");
        broken(photos.resolve("cat/a.jpg"));
        broken(photos.resolve("cat/b.jpg"));
        broken(photos.resolve("dog/c.png"));
        broken(photos.resolve("dog/d.png"));
        Path out = temp.resolve("dataset");

        Launcher.Result all = convert(photos, out);
        assertEquals(2, all.status(), all.toString());
        assertTrue(all.stdout().contains("written: 0   rejected: 4"), all.toString());
        String said = all.stderr();
        assertTrue(said.contains("pinshard convert: every one of the 4 input(s) was rejected, so " + out
            + " holds no record (a dataset of 0 records, which the loader refuses; its manifest.json lists every"
            + " reason): cat/a.jpg: "), all.toString());
        assertTrue(said.contains("; cat/b.jpg: ") && said.contains("; dog/c.png: "), all.toString());
        assertFalse(said.contains("dog/d.png"), "the first three reasons only: " + all);
        assertTrue(said.stripTrailing().endsWith("; ..."), all.toString());
        assertFalse(said.contains("\tat ") || said.contains("Exception"), all.toString());

        Launcher.Result again = convert(photos, out);
        assertEquals(2, again.status(), again.toString());
        assertTrue(again.stdout().startsWith("already complete: " + out), again.toString());
        assertTrue(again.stderr().contains("every one of the 4 input(s) was rejected"), again.toString());
    }

    @Test
    void oneGoodImageAmongRejectedOnesIsAConversionAsBefore() throws Exception {
        Path photos = temp.resolve("photos");
        broken(photos.resolve("cat/a.jpg"));
        Files.createDirectories(photos.resolve("dog"));
        ImageIO.write(new BufferedImage(16, 16, BufferedImage.TYPE_INT_RGB), "png", photos.resolve("dog/ok.png").toFile());
        Path out = temp.resolve("dataset");
        Launcher.Result made = convert(photos, out);
        assertEquals(0, made.status(), made.toString());
        assertTrue(made.stdout().contains("written: 1   rejected: 1"), made.toString());
        assertTrue(made.stdout().contains("  rejected cat/a.jpg: "), made.toString());
    }
}
