package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Convert's progress line on an 80-column pseudo-terminal: every redraw fits in 79 columns with whole fields (it
 * collapsed to "[ ]" and cut its figures), rates have a digit before the point (".6 img/s"), and an ETA figure shows
 * only once the rate is steady, never beside fewer than four finished images ("ETA --" before).
 */
@Tag("process")
class ConvertProgressOnTerminalTest {
    private static final Pattern LINE = Pattern.compile("convert +\\d+%.*");
    private static final Pattern DONE = Pattern.compile(" (\\d+)/(\\d+) img");

    @TempDir
    Path temp;

    @Test
    void theLineFitsEightyColumns() throws Exception {
        assumeTrue(Files.isExecutable(PseudoTerminal.PYTHON), PseudoTerminal.PYTHON + " runs the pseudo-terminal");
        Path photos = ImageFolders.largeUniformPngs(temp.resolve("photos"), 4, 2000, 1500, "cat", "dog");
        Launcher.Result convert = PseudoTerminal.pinshard(temp, 80, List.of(), "convert", photos.toString(), "-o",
            temp.resolve("data").toString(), "--workers", "1");
        assertEquals(0, convert.status(), convert.toString());
        int lines = 0;
        String last = "";
        for (String shown : convert.stdout().replace("\u001b[K", "").split("[\r\n]+")) {
            if (!LINE.matcher(shown).matches()) {
                continue;
            }
            lines++;
            last = shown;
            assertTrue(shown.length() <= 79, "wider than the terminal: " + shown);
            assertFalse(shown.matches(".*(^|[^0-9])\\.\\d.*"), "a rate without its leading digit: " + shown);
            assertTrue(shown.contains(" img/s") && shown.contains("ETA "), "the fields that stay at 80 columns: "
                + shown);
            Matcher done = DONE.matcher(shown);
            assertTrue(done.find(), shown);
            if (!shown.contains("ETA --")) {
                assertTrue(Integer.parseInt(done.group(1)) >= 4, "an ETA before the rate is steady: " + shown);
            }
        }
        assertTrue(lines > 0, "no progress line was shown:\n" + convert);
        assertTrue(last.contains(" 8/8 img"), "the last redraw shows the end: " + last);
    }
}
