package io.pinshard.loader.augment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.loader.options.Resampler;
import io.pinshard.reader.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Which form of {@link SourceRows} each JDK runs (the release 17 class, or on JDK 22+ the multi-release jar's
 * versioned one), and that the forms write the same bytes.
 */
class SourceRowsTest {
    /** Set by the loader pom's multi-release-jar test run: the classes come from the packaged jar. */
    private static final boolean FROM_JAR = Boolean.getBoolean("pinshard.test.multiReleaseJar");

    @BeforeAll
    static void needsTheVectorModule() {
        String reason = Resampler.vectorUnavailableReason();
        assumeTrue(reason == null, "vector kernel not testable in this JVM: " + reason);
    }

    @Test
    void eachJdkRunsItsForm() {
        String location = SourceRows.class.getProtectionDomain().getCodeSource().getLocation().getPath();
        assertEquals(FROM_JAR, location.endsWith(".jar"), "SourceRows loaded from " + location);
        assertEquals(expectedForm(System.getProperty(SourceRows.PROPERTY, "")), SourceRows.implementation());
    }

    /**
     * Child JVMs run the same crops once with direct loads where this JDK has them ({@code buffer}: JDK 17's
     * ByteBuffer views; the jar's JDK 22+ class loads from segments unless told {@code copy}) and once with
     * copies; their digests of every output byte must match.
     */
    @Test
    void directLoadsAndCopiesWriteTheSameBytes() throws Exception {
        String[] direct = digest("buffer");
        String[] copied = digest("copy");
        assertEquals(SourceRows.HEAP_COPIES, copied[0]);
        assertEquals(expectedForm("buffer"), direct[0]);
        assertEquals(copied[1], direct[1], "digest of " + direct[0] + " vs " + copied[0]);
        assumeTrue(!direct[0].equals(copied[0]), "this JVM has no direct form to compare: " + direct[0]);
        assertNotEquals(copied[0], direct[0]);
    }

    private static String expectedForm(String property) {
        int feature = Runtime.version().feature();
        if (FROM_JAR && feature >= 22) { // surefire passes --enable-native-access (pinshard.jvm.flags)
            return "copy".equals(property.trim()) ? SourceRows.HEAP_COPIES : SourceRows.SEGMENT;
        }
        return "buffer".equals(property.trim()) && feature < 19 ? SourceRows.BYTE_BUFFER : SourceRows.HEAP_COPIES;
    }

    /** {form, digest} from a child JVM with {@code pinshard.vector.sourceRows=property}. */
    private static String[] digest(String property) throws IOException, InterruptedException {
        List<String> options = new ArrayList<>(ChildJvm.pinshardFlags());
        options.add("-D" + SourceRows.PROPERTY + "=" + property);
        Process child = new ProcessBuilder(ChildJvm.command(options, SourceRowsDigestChild.class))
            .redirectErrorStream(true).start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(120, TimeUnit.SECONDS), "child timed out: " + out);
        assertEquals(0, child.exitValue(), out);
        String form = null;
        String digest = null;
        for (String line : out.split("\n")) {
            if (line.startsWith("FORM ")) {
                form = line.substring(5).trim();
            } else if (line.startsWith("DIGEST ")) {
                digest = line.substring(7).trim();
            }
        }
        assertTrue(form != null && digest != null, out);
        return new String[] {form, digest};
    }
}
