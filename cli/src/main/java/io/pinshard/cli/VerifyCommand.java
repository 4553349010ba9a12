package io.pinshard.cli;

import io.pinshard.format.DatasetFiles;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.format.Printable;
import io.pinshard.format.ShardFormatException;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.reader.Problem;
import io.pinshard.s3.S3Location;
import io.pinshard.s3.S3ShardSource;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code pinshard verify DIR [--no-decode] [--allow-links-outside]}: check every byte, and by default
 * decode every payload. Exit 0 intact, 1 corrupt or empty (0 records), 2 usage or not a dataset.
 */
@Command(name = "verify", mixinStandardHelpOptions = true,
    description = {"Check every byte of a dataset: files (regular files only, no shard listed twice), "
        + "checksums, structure, header shard numbers, labels against the class list and, unless --no-decode, "
        + "every payload decoded as the loader decodes it and checked against its index entry "
        + "(decoded size, lz4 block length, jpeg frame against height x width x channels), so that a dataset "
        + "that verifies also loads.",
        "Exit 0 when intact, 1 when anything is corrupt or the dataset is intact but empty (0 records: the loader"
            + " refuses it, so it would fail at training time, and an empty dataset is most likely a convert of the"
            + " wrong folder), 2 for usage errors or a path that is not a dataset."})
final class VerifyCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DATASET", description = "Dataset directory (holds manifest.json), or "
        + "s3://bucket/prefix (streamed through the node's shard cache: see --cache-dir, --cache-limit).")
    String directory;

    @CommandLine.Mixin
    DatasetLocationMixin location = new DatasetLocationMixin();

    @Option(names = "--decode", negatable = true, defaultValue = "true", fallbackValue = "true",
        description = "--no-decode skips decoding: checksums and structure only, much faster on jpeg datasets, but a re-sealed "
            + "index entry whose shape or codec disagrees with its payload goes unnoticed. Default: decode.")
    boolean decode;

    @Option(names = "--allow-links-outside",
        description = "Follow shards or manifest.json that are symbolic links out of the dataset directory "
            + "(refused by default; the library reads -D" + DatasetFiles.ALLOW_LINKS_OUTSIDE_PROPERTY + "=true).")
    boolean allowLinksOutside;

    @Option(names = "--threads", paramLabel = "N",
        description = "Shards checked at once, each thread with its own decoder (default: all cores). "
            + "The report is the same, in the same order, for any N.")
    int threads = Runtime.getRuntime().availableProcessors();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        List<Problem> problems;
        long records;
        long bytes;
        long start = System.nanoTime();
        try {
            if (threads < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--threads must be at least 1: " + threads);
            }
            if (S3Location.isRemote(directory)) {
                try (S3ShardSource source = location.source(directory)) {
                    problems = source.verify(decode);
                    records = source.manifest().records();
                    bytes = source.manifest().bytes();
                }
            } else {
                boolean allowLinks = allowLinksOutside || DatasetFiles.allowLinksOutsideByDefault();
                problems = new DatasetVerifier(decode, allowLinks, threads).verify(Path.of(directory));
                DatasetManifest manifest = problems.isEmpty() ? Json.readManifest(Path.of(directory), allowLinks) : null;
                records = manifest == null ? -1 : manifest.records();
                bytes = manifest == null ? -1 : manifest.bytes();
            }
        } catch (ShardFormatException e) {
            throw new IllegalArgumentException(e.getMessage(), e); // no dataset to verify there: a usage error
        }
        long nanos = System.nanoTime() - start;
        if (bytes > 0) {
            // On stderr: stdout's last line is the verdict scripts read.
            PrintWriter err = spec.commandLine().getErr();
            err.printf("verify: %,.1f MB checked in %.2f s: %.3f GB/s (%d thread(s)%s)%n", bytes / 1e6, nanos / 1e9,
                bytes / (double) Math.max(1, nanos), threads, decode ? ", payloads decoded" : "");
            err.flush();
        }
        String shown = Printable.escape(directory);
        if (problems.isEmpty() && records == 0) {
            out.println(shown + ": intact but empty: 0 records (the loader refuses a dataset without records)");
            out.flush();
            return 1;
        }
        if (problems.isEmpty()) {
            out.println(shown + ": intact" + (decode ? "" : " (checksums and structure; payloads not decoded)"));
            out.flush();
            return 0;
        }
        for (Problem problem : problems) {
            out.println(problem);
        }
        out.println(shown + ": " + problems.size() + " problem(s)");
        out.flush();
        return 1;
    }
}
