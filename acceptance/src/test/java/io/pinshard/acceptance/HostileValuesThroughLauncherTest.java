package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Record field values and class names that hold terminal escape sequences (set the title, clear the screen, an 8-bit
 * CSI, a right-to-left override, DEL) are valid UTF-8, so a dataset holding them verifies; every command that prints
 * them shows them visibly escaped ({@code \x1b}, <code>&#92;u202e</code>), and {@code --json} stays JSON that parses
 * back to the very value, with no such character raw on stdout (issue 37, path 3).
 */
@Tag("process")
class HostileValuesThroughLauncherTest {
    /** Title, bell, clear screen, 8-bit CSI, right-to-left override, first strong isolate, DEL. */
    static final String CAPTION = "evil \u001b]0;pwned\u0007 \u001b[2J \u009b31m \u202eright-to-left\u2068 \u007f end";
    static final String CLASS = "c\u001b[31mat\u202e\u009b";

    @TempDir
    static Path temp;
    static Path dataset;

    private static Launcher.Result pinshard(String... args) throws Exception {
        return Launcher.run(Launcher.pinshard(temp, args), temp.resolve("logs"), 120);
    }

    @BeforeAll
    static void convert() throws Exception {
        Path input = ImageFolders.classFolders(temp.resolve("in"), 2, "a");
        // The class name comes from a path,label manifest (no file name needs to hold it), the caption from JSONL.
        Path labels = input.resolve("labels.csv");
        Files.writeString(labels, "a/a-0.png,\"" + CLASS + "\"\na/a-1.png,\"" + CLASS + "\"\n", StandardCharsets.UTF_8);
        ObjectMapper json = new ObjectMapper();
        Path captions = temp.resolve("captions.jsonl");
        Files.writeString(captions, json.writeValueAsString(java.util.Map.of("path", "a/a-0.png", "caption", CAPTION))
            + "\n" + json.writeValueAsString(java.util.Map.of("path", "a/a-1.png", "caption", CAPTION)) + "\n",
            StandardCharsets.UTF_8);
        dataset = temp.resolve("dataset");
        Launcher.Result convert = pinshard("convert", labels.toString(), "-o", dataset.toString(), "--fields-from",
            captions.toString(), "--progress", "none");
        assertEquals(0, convert.status(), convert.toString());
        assertPrintable(convert);
        Launcher.Result verify = pinshard("verify", dataset.toString());
        assertEquals(0, verify.status(), "valid UTF-8 is a valid value: " + verify);
        assertPrintable(verify);
    }

    @Test
    void previewShowsTheCaptionEscaped() throws Exception {
        Launcher.Result preview = pinshard("preview", dataset.toString(), "--out", temp.resolve("sheet.png").toString(),
            "--caption", "caption", "--count", "2", "--crop", "32", "--epochs", "0");
        assertEquals(0, preview.status(), preview.toString());
        assertPrintable(preview);
        assertTrue(preview.stdout().contains("caption evil \\x1b]0;pwned\\x07 \\x1b[2J \\x9b31m \\u202eright-to-left"
            + "\\u2068 \\x7f end"), "the caption, every control shown: " + preview);
        assertTrue(preview.stdout().contains("class c\\x1b[31mat\\u202e\\x9b"), preview.toString());
    }

    @Test
    void dumpShowsTheCaptionsBytesNotTheirEffect() throws Exception {
        Path shard;
        try (var files = Files.list(dataset)) {
            shard = files.filter(f -> f.toString().endsWith(".pinshard")).findFirst().orElseThrow();
        }
        Launcher.Result dump = pinshard("dump", shard.toString());
        assertEquals(0, dump.status(), dump.toString());
        assertPrintable(dump);
        assertTrue(dump.stdout().contains("65 76 69 6c 20 1b 5d 30 3b 70 77 6e 65 64 07 20  field caption record[0]"),
            "the value's bytes in hex, ESC as 1b: " + dump);
    }

    @Test
    void inspectEscapesTextAndKeepsJsonJson() throws Exception {
        Launcher.Result text = pinshard("inspect", dataset.toString());
        assertEquals(0, text.status(), text.toString());
        assertPrintable(text);
        assertTrue(text.stdout().contains("c\\x1b[31mat\\u202e\\x9b"), text.toString());

        Launcher.Result json = pinshard("inspect", "--json", dataset.toString());
        assertEquals(0, json.status(), json.toString());
        assertPrintable(json);
        JsonNode summary = new ObjectMapper().readTree(json.stdout());
        assertEquals(CLASS, summary.path("classes").path(0).path("name").asText(), "the same name, once parsed");
    }

    /**
     * Nothing a terminal acts on: no C0 control but the line feed, no DEL, no C1 control, no bidi embedding, override
     * or isolate, on stdout or stderr.
     */
    static void assertPrintable(Launcher.Result result) {
        for (String stream : new String[] {result.stdout(), result.stderr()}) {
            for (int i = 0; i < stream.length(); i++) {
                char c = stream.charAt(i);
                boolean unsafe = (c < 0x20 && c != '\n') || (c >= 0x7F && c <= 0x9F) || (c >= 0x202A && c <= 0x202E)
                    || (c >= 0x2066 && c <= 0x2069);
                assertTrue(!unsafe, String.format("U+%04X raw at %d: %s", (int) c, i, result));
            }
        }
    }
}
