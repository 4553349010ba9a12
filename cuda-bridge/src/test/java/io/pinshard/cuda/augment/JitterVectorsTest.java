package io.pinshard.cuda.augment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The committed python/tests/jitter_vectors.json is exactly what {@link JitterVectors} generates from JitterParams. */
class JitterVectorsTest {
    static final String REGENERATE = "mvn -B -pl cuda-bridge -am test -Dtest=JitterVectorsTest "
        + "-Dsurefire.failIfNoSpecifiedTests=false -Dpinshard.regenerateJitterVectors=true";

    @Test
    void committedVectorsAreTheGeneratedOnes() throws Exception {
        Path vectors = Path.of(System.getProperty("pinshard.repo", ".."), "python", "tests", "jitter_vectors.json");
        String generated = JitterVectors.text();
        if (Boolean.getBoolean("pinshard.regenerateJitterVectors")) {
            Files.writeString(vectors, generated, StandardCharsets.UTF_8);
        }
        assertEquals(generated, Files.readString(vectors, StandardCharsets.UTF_8), vectors + " differs from what "
            + "JitterVectors generates from JitterParams; regenerate with: " + REGENERATE);
    }
}
