package io.pinshard.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.reader.ChildJvm;
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
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Tensors derived from a batch's tensors and used after the batch, or the adapter and the loader, closed: each
 * in a child JVM ({@link KeptTensorChild}), so that a crash inside libtorch is a failed test with its hs_err file
 * named, not a dead surefire. The kept tensor must hold the batch's own values (a copy taken before the close),
 * the loader must go on (its slot back once the kept tensor is freed), and nothing may leak.
 */
class KeptTensorTest extends TorchDatasetTest {
    @TempDir
    Path temp;

    @ParameterizedTest(name = "{0} after the {1} closed")
    @CsvSource({"permute,batch", "narrow-normalized,batch", "contiguous,batch", "clone,batch",
        "permute,loader", "narrow-normalized,loader", "contiguous,loader", "clone,loader",
        "permute,loader-first", "narrow-normalized,loader-first", "contiguous,loader-first", "clone,loader-first"})
    void aTensorKeptPastTheCloseKeepsTheBatchsValues(String kind, String closed) throws Exception {
        List<String> options = new ArrayList<>(List.of("-XX:-CreateCoredumpOnCrash",
            "-XX:ErrorFile=" + temp.resolve("hs_err_%p.log"), "-Xmx256m",
            "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")); // a short run: no C2 or GC threads on the shared cores
        options.addAll(ChildJvm.pinshardFlags());
        Path log = temp.resolve("child.log");
        Process child = new ProcessBuilder(ChildJvm.command(options, KeptTensorChild.class, dir.toString(), kind, closed))
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
        assertTrue(output.contains("kept: OK"), output);
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
