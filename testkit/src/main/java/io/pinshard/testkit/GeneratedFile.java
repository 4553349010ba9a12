package io.pinshard.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A committed file that Java code generates for another side (Python's ring layout and serve options, the jitter's
 * test vectors): its test asserts the committed bytes are what the generator writes now, and rewrites the file when
 * run with {@code -D<property>=true}, the command its failure prints. One home for that check (it was written out in
 * three modules' tests); the testkit carries it, as it needs nothing of pinshard's.
 *
 * @param repoPath  the file, relative to the repository root (the {@code pinshard.repo} property, else {@code ..}:
 *                  a module's folder)
 * @param generator what writes it, from what, as the failure names it
 * @param module    the module whose test checks it
 * @param test      that test's class name
 * @param property  the system property that makes the test rewrite the file
 */
public record GeneratedFile(String repoPath, String generator, String module, String test, String property) {
    /** The command that rewrites the file from the generator. */
    public String regenerateCommand() {
        return "mvn -B -pl " + module + " -am test -Dtest=" + test + " -Dsurefire.failIfNoSpecifiedTests=false -D"
            + property + "=true";
    }

    /** The file in this checkout. */
    public Path path() {
        return Path.of(System.getProperty("pinshard.repo", ".."), repoPath);
    }

    /** Asserts the committed file is {@code generated}, after rewriting it when {@link #property()} is set. */
    public void assertCommitted(String generated) throws IOException {
        Path file = path();
        if (Boolean.getBoolean(property)) {
            Files.writeString(file, generated, StandardCharsets.UTF_8);
        }
        assertEquals(generated, Files.readString(file, StandardCharsets.UTF_8), file + " differs from what "
            + generator + " generates; regenerate with: " + regenerateCommand());
    }
}
