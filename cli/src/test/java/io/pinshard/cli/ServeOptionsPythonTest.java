package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.generated.GeneratedFile;
import org.junit.jupiter.api.Test;

/** The committed python/pinshard/_serve_options.py is exactly what {@link ServeOptionsPython} generates from the CLI. */
class ServeOptionsPythonTest {
    static final GeneratedFile OPTIONS = new GeneratedFile("python/pinshard/_serve_options.py",
        "ServeOptionsPython (from ServeCommand's options)", "cli", "ServeOptionsPythonTest",
        "pinshard.regenerateServeOptions");

    @Test
    void committedOptionsAreTheGeneratedOnes() throws Exception {
        OPTIONS.assertCommitted(ServeOptionsPython.text());
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
