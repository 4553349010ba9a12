package io.pinshard.serve;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/**
 * The committed ring test vectors ({@code serve/test-vectors}) are what {@link RingTestVectors} generates, and the
 * Java checks accept the good one and refuse each hostile one with the words expected.tsv gives (the Python client's
 * tests run the same files). {@code -Dpinshard.regenerateRingVectors=true} rewrites them.
 */
class RingTestVectorsTest {
    static final String REGENERATE = "mvn -B -pl serve -am test -Dtest=RingTestVectorsTest "
        + "-Dsurefire.failIfNoSpecifiedTests=false -Dpinshard.regenerateRingVectors=true";
    private static final Path COMMITTED = Path.of(System.getProperty("pinshard.repo", ".."), "serve", "test-vectors");

    @Test
    void committedVectorsAreTheGeneratedOnes() throws Exception {
        if (Boolean.getBoolean("pinshard.regenerateRingVectors")) {
            RingTestVectors.writeAll(COMMITTED);
        }
        for (RingTestVectors.Vector v : RingTestVectors.all().values()) {
            assertArrayEquals(RingTestVectors.bytes(v), Files.readAllBytes(COMMITTED.resolve(v.name())),
                v.name() + " differs from the generated one; regenerate with: " + REGENERATE);
        }
        assertEquals(RingTestVectors.expected(), Files.readString(COMMITTED.resolve("expected.tsv")),
            "expected.tsv; regenerate with: " + REGENERATE);
    }

    @Test
    void theGoodVectorPassesAndEachHostileOneIsRefusedWithItsWords() throws Exception {
        for (RingTestVectors.Vector v : RingTestVectors.all().values()) {
            byte[] file = Files.readAllBytes(COMMITTED.resolve(v.name()));
            UnsafeBuffer buffer = new UnsafeBuffer(file);
            Runnable check = () -> {
                RingDescriptor.checkHeader(buffer, file.length, v.name());
                RingDescriptor.checkSlot(buffer, 0, v.name());
            };
            if (v.javaWords().isEmpty()) {
                check.run();
            } else {
                RingFormatException refused = assertThrows(RingFormatException.class, check::run, v.name());
                assertTrue(refused.getMessage().contains(v.javaWords()), v.name() + ": " + refused.getMessage());
            }
        }
    }
}
