package io.pinshard.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.fixtures.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Tensors derived from a batch's tensors and used after the batch, or the adapter and the loader, closed: each
 * in a child JVM ({@link KeptTensorChild}), so that a crash inside libtorch is a failed test with its hs_err file
 * named, not a dead surefire. The kept tensor must hold the batch's own values (a copy taken before the close),
 * the loader must go on (its slot back once the kept tensor is freed), and nothing may leak.
 */
@org.junit.jupiter.api.Tag("process")
class KeptTensorTest extends TorchDatasetTest {
    @TempDir
    Path temp;

    /** The four kinds of kept tensor, one after the other in one child JVM per close (a JVM start is most of a case). */
    private static final List<String> KINDS = List.of("permute", "narrow-normalized", "contiguous", "clone");

    @ParameterizedTest(name = "kept tensors after the {0} closed")
    @ValueSource(strings = {"batch", "loader", "loader-first"})
    void aTensorKeptPastTheCloseKeepsTheBatchsValues(String closed) throws Exception {
        List<String> options = new ArrayList<>(List.of("-XX:-CreateCoredumpOnCrash",
            "-XX:ErrorFile=" + temp.resolve("hs_err_%p.log"), "-Xmx256m",
            "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")); // a short run: no C2 or GC threads on the shared cores
        options.addAll(ChildJvm.pinshardFlags());
        Path log = temp.resolve("child.log");
        List<String> arguments = new ArrayList<>(List.of(dir.toString()));
        KINDS.forEach(kind -> arguments.add(kind + ":" + closed));
        Process child = new ProcessBuilder(ChildJvm.command(options, KeptTensorChild.class,
            arguments.toArray(new String[0])))
            .directory(temp.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!child.waitFor(120, TimeUnit.SECONDS)) { // a hung child fails the test, not the build
            child.destroyForcibly().waitFor();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        List<Path> crashes;
        try (Stream<Path> files = Files.list(temp)) {
            crashes = files.filter(f -> f.getFileName().toString().startsWith("hs_err")).toList();
        }
        assertTrue(crashes.isEmpty(), "the JVM crashed: " + crashes + "\n" + output + crashReport(crashes));
        assertEquals(0, child.exitValue(), output);
        for (String kind : KINDS) {
            assertTrue(output.contains("kept: OK (" + kind + ","), kind + ": " + output);
        }
    }

    /** The crash report's head: the signal and the native frames. */
    private static String crashReport(List<Path> crashes) throws IOException {
        StringBuilder head = new StringBuilder();
        for (Path crash : crashes) {
            List<String> lines = Files.readAllLines(crash);
            head.append("\n--- ").append(crash).append('\n');
            lines.stream().limit(40).forEach(l -> head.append(l).append('\n'));
        }
        return head.toString();
    }
}
