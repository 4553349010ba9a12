package io.pinshard.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

class GeneratedFileTest {
    private static final String PROPERTY = "pinshard.test.regenerateSample";

    /** The surefire run's pinshard.repo, which testkit's architecture tests read: put back after each test. */
    private static final String REPO = System.getProperty("pinshard.repo");

    @TempDir
    Path repo;

    private GeneratedFile sample() {
        System.setProperty("pinshard.repo", repo.toString());
        return new GeneratedFile("python/sample.py", "Sample from SampleDescriptor", "serve", "SampleTest", PROPERTY);
    }

    @AfterEach
    void clear() {
        if (REPO == null) {
            System.clearProperty("pinshard.repo");
        } else {
            System.setProperty("pinshard.repo", REPO);
        }
        System.clearProperty(PROPERTY);
    }

    @Test
    void aStaleFileFailsNamingTheFileTheGeneratorAndTheCommandThatRewritesIt() throws Exception {
        GeneratedFile file = sample();
        Files.createDirectories(file.path().getParent());
        Files.writeString(file.path(), "OLD = 1\n");
        AssertionFailedError failure = assertThrows(AssertionFailedError.class, () -> file.assertCommitted("NEW = 2\n"));
        assertTrue(failure.getMessage().contains(file.path() + " differs from what Sample from SampleDescriptor"
            + " generates; regenerate with: mvn -B -pl serve -am test -Dtest=SampleTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -D" + PROPERTY + "=true"), failure.getMessage());
    }

    @Test
    void thePropertyRewritesTheFileAndThenItPasses() throws Exception {
        GeneratedFile file = sample();
        Files.createDirectories(file.path().getParent());
        Files.writeString(file.path(), "OLD = 1\n");
        System.setProperty(PROPERTY, "true");
        file.assertCommitted("NEW = 2\n");
        assertEquals("NEW = 2\n", Files.readString(file.path(), StandardCharsets.UTF_8));
        System.clearProperty(PROPERTY);
        file.assertCommitted("NEW = 2\n");
    }
}
