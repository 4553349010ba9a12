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

/** The generated benchmark list holds every benchmark the suite promises, and forks get pinshard's flags. */
class BenchmarkListTest {
    /** The benchmarks issue 6 asks for that exist in this module, and issue 4's crop-kernel check. */
    static final Set<String> EXPECTED = Set.of(
        "io.pinshard.jmh.NaiveLoaderBenchmark.loadOneSample",
        "io.pinshard.jmh.DecodeBenchmark.decodeOneImage",
        "io.pinshard.jmh.DatasetOpenBenchmark.openAndClose",
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

    @Test
    void everyBenchmarkForksWithThePomsJvmFlags() throws IOException {
        Path pom = Path.of(System.getProperty("pinshard.repo", ".."), "pom.xml");
        Matcher m = Pattern.compile("<pinshard.jvm.flags>(.*)</pinshard.jvm.flags>").matcher(Files.readString(pom));
        assertTrue(m.find(), "root pom has no pinshard.jvm.flags property");
        assertEquals(List.of(m.group(1).trim().split("\\s+")), ForkFlags.ALL);
        for (BenchmarkListEntry entry : entries()) {
            List<String> appended = List.copyOf(entry.getJvmArgsAppend().orElse(List.of()));
            assertTrue(appended.containsAll(ForkFlags.ALL), entry.getUsername() + " forks with " + appended);
            assertTrue(!entry.getJvmArgs().hasValue(), entry.getUsername()
                + " sets jvmArgs, which would drop the parent's flags (the JDK 24+ one) from its forks");
        }
    }

    @Test
    void missingFlagsAreNamedAndTheJdk24FlagOnlyAppliesFrom24() {
        assertEquals(List.of(), ForkFlags.missing(ForkFlags.ALL, 17));
        assertEquals(List.of(ForkFlags.JDK24_UNSAFE), ForkFlags.missing(ForkFlags.ALL, 25));
        assertEquals(List.of(ForkFlags.EXPORT_MISC), ForkFlags.missing(ForkFlags.ALL.subList(1, ForkFlags.ALL.size()), 17));
    }
}
