package io.pinshard.cli;

import io.pinshard.format.Printable;
import io.pinshard.s3.S3Location;
import io.pinshard.s3.transfer.ChunkedFallbackPush;
import io.pinshard.s3.transfer.PushOptions;
import io.pinshard.s3.transfer.PushResult;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code pinshard push DIR s3://bucket/prefix}: upload a verified dataset, manifest last, resumable. Exit 0 pushed,
 * 1 the store failed or kept other bytes than were sent, or the destination holds another dataset, 2 usage errors
 * or DIR not a dataset.
 */
@Command(name = "push", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Upload a dataset to S3-compatible storage. The local dataset is verified first; shards go up in "
        + "parallel (in parts above --multipart-threshold), each with its CRC32C in user metadata and a Content-MD5 "
        + "the store checks; the manifest goes up last, so a half-pushed dataset is never visible as complete. "
        + "Each object's stored length and CRC32C metadata are checked after its upload and the manifest is read "
        + "back: a store that kept other bytes fails the push, naming the object.",
        "Rerun after a kill or a failure, it skips shards already there with the right size and CRC32C and resumes "
        + "interrupted multipart uploads. A different dataset at the destination is refused unless --force; objects "
        + "under the prefix that the manifest does not list are reported and left, unless --delete-stale."},
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {"0:pushed (or already there)", "1:the store failed or kept other bytes than were sent, or the "
        + "destination holds another dataset",
        "2:usage error, or DIR is not a dataset"})
final class PushCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DIR", description = "Dataset directory (holds manifest.json).")
    Path directory;

    @Parameters(index = "1", paramLabel = "s3://BUCKET/PREFIX", description = "Destination; the dataset's files "
        + "become PREFIX/manifest.json and PREFIX/shard-*.pinshard.")
    String destination;

    @Mixin
    PushOptionsMixin push = new PushOptionsMixin();

    @Mixin
    TransferOptionsMixin transfer = new TransferOptionsMixin();

    @Override
    public Integer call() {
        S3Location to = S3Location.parse(destination);
        return transfer.run("push", "sent", "the manifest goes up last, so " + to + " is a complete dataset only once"
            + " a push finishes; the rerun skips the shards in place", reporter -> push(directory, to, transfer.s3,
            push.options(), reporter, transfer.out(), transfer.err(), "push"));
    }

    /** Pushes and prints the outcome; shared with {@code convert --output s3://}. */
    static int push(Path directory, S3Location to, S3OptionsMixin s3, PushOptions options,
                    ConvertProgressReporter.Mode mode, PrintWriter out, PrintWriter err, String command) {
        try (TransferProgressReporter reporter = TransferOptionsMixin.reporter("push", mode)) {
            return push(directory, to, s3, options, reporter, out, err, command);
        }
    }

    private static int push(Path directory, S3Location to, S3OptionsMixin s3, PushOptions options,
                            TransferProgressReporter reporter, PrintWriter out, PrintWriter err, String command) {
        long start = System.nanoTime();
        PushResult result;
        try (reporter) {
            result = ChunkedFallbackPush.push(s3.settings(), options, reporter, directory, to, notice -> {
                err.println("pinshard " + command + ": " + Printable.escape(notice));
                err.flush();
            });
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        out.printf(Locale.ROOT, "pushed %s to %s: %d shard(s) uploaded (%s), %d already there (%s)%s; manifest %s%n",
            Printable.escape(directory.toString()), to, result.uploaded(), Units.bytes(result.uploadedBytes()),
            result.skipped(), Units.bytes(result.skippedBytes()),
            result.resumedParts() > 0 ? ", " + result.resumedParts() + " part(s) of interrupted uploads reused" : "",
            result.manifestWritten() ? "written last" : "unchanged (already there)");
        out.println(Units.wallTime(seconds, result.uploadedBytes() / 1e6, "MB"));
        if (!result.deleted().isEmpty()) {
            out.printf(Locale.ROOT, "deleted %d stale shard object(s) the manifest does not list%n",
                result.deleted().size());
        }
        if (!result.stale().isEmpty()) {
            out.printf(Locale.ROOT, "note: %d object(s) under %s are not part of this dataset and were left in place "
                + "(--delete-stale removes the *.pinshard ones): %s%s%n", result.stale().size(), to,
                Printable.escape(String.join(", ", result.stale().subList(0, Math.min(5, result.stale().size())))),
                result.stale().size() > 5 ? ", ..." : "");
        }
        out.flush();
        return 0;
    }
}
