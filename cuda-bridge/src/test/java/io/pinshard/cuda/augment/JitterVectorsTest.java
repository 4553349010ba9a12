package io.pinshard.cuda.augment;

import io.pinshard.testkit.GeneratedFile;
import org.junit.jupiter.api.Test;

/** The committed python/tests/jitter_vectors.json is exactly what {@link JitterVectors} generates from JitterParams. */
class JitterVectorsTest {
    static final GeneratedFile VECTORS = new GeneratedFile("python/tests/jitter_vectors.json",
        "JitterVectors (from JitterParams)", "cuda-bridge", "JitterVectorsTest", "pinshard.regenerateJitterVectors");

    @Test
    void committedVectorsAreTheGeneratedOnes() throws Exception {
        VECTORS.assertCommitted(JitterVectors.text());
    }
}
