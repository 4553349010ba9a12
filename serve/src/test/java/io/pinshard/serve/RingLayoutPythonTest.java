package io.pinshard.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The committed python/pinshard/_layout.py is exactly what {@link RingLayoutPython} generates from RingDescriptor. */
class RingLayoutPythonTest {
    static final String REGENERATE = "mvn -B -pl serve -am test -Dtest=RingLayoutPythonTest "
        + "-Dsurefire.failIfNoSpecifiedTests=false -Dpinshard.regenerateLayout=true";

    @Test
    void committedLayoutIsTheGeneratedOne() throws Exception {
        Path layout = Path.of(System.getProperty("pinshard.repo", ".."), "python", "pinshard", "_layout.py");
        String generated = RingLayoutPython.text();
        if (Boolean.getBoolean("pinshard.regenerateLayout")) {
            Files.writeString(layout, generated, StandardCharsets.UTF_8);
        }
        assertEquals(generated, Files.readString(layout, StandardCharsets.UTF_8), layout + " differs from what "
            + "RingLayoutPython generates from RingDescriptor; regenerate with: " + REGENERATE);
    }
}
