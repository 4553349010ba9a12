package io.pinshard.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.VerboseMode;

/** The generated benchmark list holds every benchmark the suite promises, and forks get the root pom's JVM flags. */
class BenchmarkListTest {
    /** The benchmarks issue 6 asks for that exist in this module, and issue 4's crop-kernel check. */
    static final Set<String> EXPECTED = Set.of(
        "io.pinshard.jmh.NaiveLoaderBenchmark.loadOneSample",
        "io.pinshard.jmh.DecodeBenchmark.decodeOneImage",
        "io.pinshard.jmh.DatasetOpenBenchmark.openAndClose",
        "io.pinshard.jmh.DatasetOpenBenchmark.openAndCheckEveryIndex",
        "io.pinshard.jmh.RecordAccessBenchmark.accessOneRecord",
        "io.pinshard.jmh.LoaderBenchmark.nextBatch",
        "io.pinshard.jmh.ConvertBenchmark.convert",
        "io.pinshard.jmh.HandOffBenchmark.handOffOneBatch",
        "io.pinshard.jmh.CropKernelBenchmark.cropOneImage");

    static Set<BenchmarkListEntry> entries() {
        return BenchmarkList.defaultList().getAll(OutputFormatFactory.createFormatInstance(System.out, VerboseMode.SILENT),
            List.of());
    }

    @Test
    void generatedListHoldsEveryBenchmark() {
        Set<String> listed = new TreeSet<>();
        for (BenchmarkListEntry entry : entries()) {
            listed.add(entry.getUsername());
        }
        assertEquals(new TreeSet<>(EXPECTED), listed);
    }

    static List<String> pomProperty(String name) throws IOException {
        Path pom = JvmFlagsHomeTest.repo().resolve("pom.xml");
        Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">(.*)</" + Pattern.quote(name) + ">")
            .matcher(Files.readString(pom));
        assertTrue(m.find(), "root pom has no " + name + " property");
        return List.of(m.group(1).trim().split("\\s+"));
    }

    @Test
    void theForkFlagsAreThePomsOwn() throws IOException {
        assertEquals(pomProperty("pinshard.jvm.flags"), ForkFlags.ALL);
        assertEquals(pomProperty("pinshard.jvm.jdk24Flags"), ForkFlags.JDK24);
        for (BenchmarkListEntry entry : entries()) {
            List<String> appended = List.copyOf(entry.getJvmArgsAppend().orElse(List.of()));
            assertEquals(List.of(PinshardBenchmark.FORK_HEAP), appended, entry.getUsername() + " forks with " + appended);
            assertTrue(!entry.getJvmArgs().hasValue(), entry.getUsername()
                + " sets jvmArgs, which would drop the parent's flags from its forks");
        }
    }

    @Test
    void theMainAppendsWhatTheParentLacksToEveryFork() {
        String all = String.join(" ", ForkFlags.ALL);
        assertEquals(List.of("-jvmArgsAppend", all + " -Xmx2g", "-l"),
            List.of(BenchmarksMain.withForkFlags(new String[] {"-l"}, List.of(), 17)));
        assertEquals(List.of("-jvmArgsAppend", all + " " + String.join(" ", ForkFlags.JDK24) + " -Xmx2g"),
            List.of(BenchmarksMain.withForkFlags(new String[0], List.of("-Dx=1"), 25)));
        assertEquals(List.of("-jvmArgsAppend", "-Xmx2g", "LoaderBenchmark"),
            List.of(BenchmarksMain.withForkFlags(new String[] {"LoaderBenchmark"}, ForkFlags.ALL, 17)));
        // The caller's own appends come last (so their -Xmx wins) in the one -jvmArgsAppend JMH reads.
        assertEquals(List.of("-jvmArgsAppend", "-Xmx2g -Xmx8g -Da=1", "-f", "1"),
            List.of(BenchmarksMain.withForkFlags(new String[] {"-jvmArgsAppend", "-Xmx8g", "-f", "1",
                "-jvmArgsAppend=-Da=1"}, ForkFlags.ALL, 17)));
    }

    @Test
    void missingFlagsAreNamedAndTheJdk24FlagOnlyAppliesFrom24() {
        assertEquals(List.of(), ForkFlags.missing(ForkFlags.ALL, 17));
        assertEquals(ForkFlags.JDK24, ForkFlags.missing(ForkFlags.ALL, 25));
        assertEquals(List.of(ForkFlags.ALL.get(0)), ForkFlags.missing(ForkFlags.ALL.subList(1, ForkFlags.ALL.size()), 17));
    }
}
