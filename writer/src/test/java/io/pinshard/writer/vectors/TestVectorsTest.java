package io.pinshard.writer.vectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Regenerates every test vector into {@code target/test-vectors} with the real writer and fails if
 * any byte differs from the committed ones under {@code format-spec/test-vectors}, or if SPEC.md's
 * embedded hex dumps differ from fresh ones: the format cannot drift silently. With
 * {@code -Dpinshard.regenerateVectors=true} it rewrites the committed vectors and the dumps instead.
 */
class TestVectorsTest {
    static final String REGENERATE_COMMAND = "mvn -B -pl writer -am verify -Dtest=TestVectorsTest"
        + " -Dsurefire.failIfNoSpecifiedTests=false -D" + TestVectorCatalog.REGENERATE_PROPERTY + "=true";

    private static final Path GENERATED = Path.of("target", "test-vectors").toAbsolutePath();
    private static final boolean REGENERATE = Boolean.getBoolean(TestVectorCatalog.REGENERATE_PROPERTY);

    @BeforeAll
    static void generate() throws IOException {
        Path committed = TestVectorCatalog.committedDirectory();
        if (REGENERATE) {
            TestVectorGenerator.createMissingInputs(TestVectorCatalog.inputsDirectory());
        }
        TestVectorGenerator.deleteRecursively(GENERATED);
        TestVectorGenerator.generateAll(GENERATED, TestVectorCatalog.inputsDirectory());
        if (REGENERATE) {
            for (String file : vectorFiles(committed)) {
                Files.delete(committed.resolve(file));
            }
            for (String file : vectorFiles(GENERATED)) {
                Files.createDirectories(committed.resolve(file).getParent());
                Files.copy(GENERATED.resolve(file), committed.resolve(file));
            }
            Path spec = TestVectorCatalog.specFile();
            String text = Files.readString(spec, StandardCharsets.UTF_8);
            Files.writeString(spec, SpecHexDumps.refresh(text, GENERATED), StandardCharsets.UTF_8);
        }
    }

    @Test
    void committedVectorsAreExactlyWhatTheWriterProduces() throws IOException {
        Path committed = TestVectorCatalog.committedDirectory();
        List<String> generatedFiles = vectorFiles(GENERATED);
        assertEquals(generatedFiles, vectorFiles(committed), "the files under " + committed
            + " differ from the generated set; regenerate with: " + REGENERATE_COMMAND);
        List<String> problems = new ArrayList<>();
        for (String file : generatedFiles) {
            String difference = firstDifference(Files.readAllBytes(committed.resolve(file)),
                Files.readAllBytes(GENERATED.resolve(file)), "committed", "generated");
            if (difference != null) {
                problems.add(file + ": " + difference);
            }
        }
        if (!problems.isEmpty()) {
            fail("committed test vectors differ from the writer's output (if the format change is intended, "
                + "regenerate with: " + REGENERATE_COMMAND + "):\n  " + String.join("\n  ", problems));
        }
    }

    @Test
    void specHexDumpsAreThoseOfTheVectors() throws IOException {
        String spec = Files.readString(TestVectorCatalog.specFile(), StandardCharsets.UTF_8);
        List<SpecHexDumps.Block> blocks = SpecHexDumps.blocks(spec, GENERATED);
        assertFalse(blocks.stream().noneMatch(b -> b.expected().startsWith("```text")),
            "SPEC.md embeds no <!-- hexdump:NAME --> blocks");
        for (SpecHexDumps.Block block : blocks) {
            String difference = firstDifference(block.embedded().getBytes(StandardCharsets.UTF_8),
                block.expected().getBytes(StandardCharsets.UTF_8), "embedded", "fresh");
            if (difference != null) {
                long line = block.embedded().substring(0, commonPrefix(block.embedded(), block.expected()))
                    .chars().filter(c -> c == '\n').count() + 1;
                fail("SPEC.md's embedded copy of " + block.name() + " is stale from its line " + line + " (" + difference
                    + "); regenerate with: " + REGENERATE_COMMAND);
            }
        }
    }

    /** Vector files below {@code root}, relative, sorted; the committed JPEG inputs are not vectors. */
    private static List<String> vectorFiles(Path root) throws IOException {
        TreeSet<String> files = new TreeSet<>();
        if (!Files.isDirectory(root)) {
            return List.copyOf(files);
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.filter(Files::isRegularFile)
                .map(p -> root.relativize(p).toString().replace('\\', '/'))
                .filter(name -> !name.startsWith("inputs/"))
                .forEach(files::add);
        }
        return List.copyOf(files);
    }

    /** Where two byte strings first differ, in words; null when they are equal. */
    static String firstDifference(byte[] old, byte[] fresh, String oldName, String freshName) {
        int common = Math.min(old.length, fresh.length);
        for (int i = 0; i < common; i++) {
            if (old[i] != fresh[i]) {
                return String.format("first difference at offset %d (0x%x): %s 0x%02x, %s 0x%02x",
                    i, i, oldName, old[i] & 0xFF, freshName, fresh[i] & 0xFF);
            }
        }
        if (old.length != fresh.length) {
            return oldName + " holds " + old.length + " bytes, " + freshName + " " + fresh.length
                + " (equal up to offset " + common + ")";
        }
        return null;
    }

    private static int commonPrefix(String a, String b) {
        int i = 0;
        while (i < a.length() && i < b.length() && a.charAt(i) == b.charAt(i)) {
            i++;
        }
        return i;
    }
}
