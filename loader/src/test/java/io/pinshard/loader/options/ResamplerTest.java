package io.pinshard.loader.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.fixtures.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Which resampler runs: the build's JVMs have the vector module; a JVM without it falls back with a reason. */
class ResamplerTest {
    @Test
    void theBuildRunsTheVectorKernel() {
        String reason = Resampler.vectorUnavailableReason();
        assertTrue(reason == null || !reason.contains("--add-modules"),
            "surefire starts JVMs with --add-modules=jdk.incubator.vector: " + reason);
        // A kernel that fails to load (a moved or hidden class, a missing method) is a defect, not a CPU limit.
        assertTrue(reason == null || !reason.startsWith("the vector kernel did not load"), reason);
        assumeTrue(reason == null, "this CPU cannot run the kernel: " + reason);
        assertEquals(Resampler.VECTOR, Resampler.AUTO.effective());
        assertEquals(Resampler.OPENCV, Resampler.OPENCV.effective());
    }

    @org.junit.jupiter.api.Tag("process")
    @Test
    void withoutTheModuleAutoFallsBackToOpenCvSaysSoAndVectorSaysWhy() throws Exception {
        String out = runWithoutVectorModule();
        assertTrue(out.contains("auto=OPENCV"), out);
        assertTrue(out.contains("pinshard loader crops with OpenCV, not the vector kernel"), "AUTO says it fell back: " + out);
        assertTrue(out.contains("vector=IllegalStateException: resampler VECTOR cannot run: the JVM was started without "
            + "--add-modules jdk.incubator.vector"), out);
    }

    /** Child JVM with this test's class path and every pinshard flag but the vector module. */
    private static String runWithoutVectorModule() throws IOException, InterruptedException {
        List<String> flags = ChildJvm.pinshardFlags().stream().filter(flag -> !flag.contains("jdk.incubator.vector")).toList();
        Process process = new ProcessBuilder(ChildJvm.command(flags, Probe.class)).redirectErrorStream(true).start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "child JVM did not finish");
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), out);
        return out;
    }

    /** Prints what AUTO becomes and what VECTOR says in the child JVM. */
    public static final class Probe {
        public static void main(String[] args) {
            System.out.println("auto=" + Resampler.AUTO.effective());
            try {
                System.out.println("vector=" + Resampler.VECTOR.effective());
            } catch (IllegalStateException e) {
                System.out.println("vector=IllegalStateException: " + e.getMessage());
            }
        }
    }
}
