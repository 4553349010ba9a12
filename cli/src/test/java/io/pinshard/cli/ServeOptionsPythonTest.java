package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The committed python/pinshard/_serve_options.py is exactly what {@link ServeOptionsPython} generates from the CLI. */
class ServeOptionsPythonTest {
    static final String REGENERATE = "mvn -B -pl cli -am test -Dtest=ServeOptionsPythonTest "
        + "-Dsurefire.failIfNoSpecifiedTests=false -Dpinshard.regenerateServeOptions=true";

    @Test
    void committedOptionsAreTheGeneratedOnes() throws Exception {
        Path options = Path.of(System.getProperty("pinshard.repo", ".."), "python", "pinshard", "_serve_options.py");
        String generated = ServeOptionsPython.text();
        if (Boolean.getBoolean("pinshard.regenerateServeOptions")) {
            Files.writeString(options, generated, StandardCharsets.UTF_8);
        }
        assertEquals(generated, Files.readString(options, StandardCharsets.UTF_8), options + " differs from what "
            + "ServeOptionsPython generates from ServeCommand's options; regenerate with: " + REGENERATE);
    }

    @Test
    void valuesAndFlagsAreTold() {
        String text = ServeOptionsPython.text();
        assertTrue(text.contains("\"batch\": (\"--batch\", True)"), text);
        assertTrue(text.contains("\"drop_last\": (\"--drop-last\", False)"), text);
        assertTrue(text.contains("\"eval_crop_fraction\": (\"--eval-crop-fraction\", True)"), text);
        assertTrue(!text.contains("\"help\""), "help and version are not serve options: " + text);
    }
}
