package io.pinshard.cli;

import io.pinshard.format.DatasetManifest;
import io.pinshard.writer.convert.DatasetMerger;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code pinshard merge PART_DIR... -o DIR}: combine the parts of a {@code convert --part i/N} run. */
@Command(name = "merge", mixinStandardHelpOptions = true,
    description = {"Combine the part directories of 'pinshard convert --part i/N' runs into one dataset."
        + " Shard files are hard-linked (copied across file systems), never rewritten; the records come out in the"
        + " order a single run would write them. Exit 0 merged, 1 I/O failure, 2 usage (missing, duplicate or"
        + " mismatched parts, or another writer holds DIR)."})
final class MergeCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "PART_DIR", description = "Part directories, in any order.")
    List<Path> parts;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "DIR", description = "Merged dataset directory.")
    Path output;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        DatasetManifest merged = DatasetMerger.merge(parts, output);
        out.printf("merged %d part(s): %d records, %d rejected, %d shard(s), %s -> %s%n", parts.size(), merged.records(),
            merged.rejected().size(), merged.shards().size(), Units.bytes(merged.bytes()), output);
        out.flush();
        return 0;
    }
}
