package io.pinshard.loader.augment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.fixtures.ChildJvm;
import io.pinshard.loader.options.Resampler;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The vector kernel reading a mapping that shrinks under it, after C2 has compiled it: the fault must be an
 * {@link InternalError} the loader turns into a clear error, not a SIGBUS that kills the JVM. The kernel's guarded
 * row copies give that; vector loads straight from a mapped segment on JDK 25 did not (the JVM died of SIGBUS in
 * their compiled code: docs/benchmarks.md), so this guards any change to how the kernel reads its source. A child
 * JVM does it, so a crash fails this test instead of the test run.
 */
@org.junit.jupiter.api.Tag("process")
class KernelTruncationTest {
    @TempDir
    Path temp;

    @BeforeAll
    static void needsTheVectorModule() {
        String reason = Resampler.vectorUnavailableReason();
        assumeTrue(reason == null, "vector kernel not testable in this JVM: " + reason);
    }

    @Test
    void aTruncatedMappingFaultsAsAnInternalError() throws Exception {
        List<String> options = new ArrayList<>(List.of("-XX:-CreateCoredumpOnCrash", "-Xbatch",
            "-XX:ErrorFile=" + temp.resolve("hs_err_%p.log")));
        options.addAll(ChildJvm.pinshardFlags());
        List<String> command = ChildJvm.command(options, KernelTruncationChild.class, temp.resolve("image").toString());
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(120, TimeUnit.SECONDS), "child timed out: " + out);
        assertTrue(child.exitValue() != 134 && !out.contains("SIGBUS"), "the child JVM crashed:\n" + out);
        assertEquals(0, child.exitValue(), out);
        assertTrue(out.contains("FAULTED java.lang.InternalError"), out);
    }
}
