package io.pinshard.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.fixtures.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The natives probe: a JVM where libtorch cannot load says why, once, and the adapter refuses with that reason. */
class LibtorchTest {
    private static String runChild(String... options) throws IOException, InterruptedException {
        List<String> flags = new ArrayList<>(ChildJvm.pinshardFlags());
        flags.addAll(List.of(options));
        Process process = new ProcessBuilder(ChildJvm.command(flags, LibtorchProbe.class)).redirectErrorStream(true)
            .start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, process.exitValue(), "the probe never crashes the JVM: " + out);
        return out;
    }

    @org.junit.jupiter.api.Tag("process")
    @Test
    void nativesForAnotherPlatformFailToLoadWithAReasonNotACrash() throws Exception {
        // JavaCPP looks for linux-arm64 natives, which the classpath does not have: a genuine load failure.
        String out = runChild("-Dorg.bytedeco.javacpp.platform=linux-arm64");
        assertTrue(out.contains("status: libtorch unavailable: the libtorch natives"), out);
        assertTrue(out.contains("linux-arm64) could not be loaded"), out);
        assertTrue(out.contains("of: libtorch unavailable"), out);
    }

    @org.junit.jupiter.api.Tag("process")
    @Test
    void disablingItIsAReasonToo() throws Exception {
        String out = runChild("-Dpinshard.torch.disable=true");
        assertTrue(out.contains("status: libtorch unavailable: disabled by -Dpinshard.torch.disable=true"), out);
    }

    @Test
    void theReasonIsOneLineNamingTheDeepestCause() {
        String reason = Libtorch.explain(new RuntimeException("wrapper",
            new UnsatisfiedLinkError("no jnitorch in java.library.path: [/usr/lib]\n\tat somewhere")));
        assertTrue(reason.contains("could not be loaded: UnsatisfiedLinkError: no jnitorch in java.library.path"), reason);
        assertFalse(reason.contains("\n"), reason);
    }

    @Test
    void optionsRefuseMeaninglessStatistics() {
        assertEquals(0.485f, TorchOptions.defaults().mean(0));
        assertEquals(0.225f, TorchOptions.defaults().std(2));
        assertThrows(IllegalArgumentException.class, () -> TorchOptions.normalize(new float[] {0, 0}, new float[] {1, 1, 1}));
        assertThrows(IllegalArgumentException.class, () -> TorchOptions.normalize(new float[3], new float[] {1, 0, 1}));
        assertThrows(IllegalArgumentException.class, () -> TorchOptions.normalize(new float[] {Float.NaN, 0, 0},
            new float[] {1, 1, 1}));
        float[] mean = {0.1f, 0.2f, 0.3f};
        TorchOptions options = TorchOptions.normalize(mean, new float[] {1, 1, 1});
        mean[0] = 9;
        assertEquals(0.1f, options.mean(0), "the options keep their own copy");
    }
}
