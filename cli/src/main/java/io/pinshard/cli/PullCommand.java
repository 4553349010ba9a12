package io.pinshard.cli;

import io.pinshard.format.Printable;
import io.pinshard.s3.S3Clients;
import io.pinshard.s3.S3Location;
import io.pinshard.s3.S3Settings;
import io.pinshard.s3.transfer.DatasetPull;
import io.pinshard.s3.transfer.PullOptions;
import io.pinshard.s3.transfer.PullResult;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code pinshard pull s3://bucket/prefix DIR}: download a dataset, every shard verified before it takes its name,
 * manifest last, resumable. Exit 0 pulled, 1 a shard failed its checks or the store failed, 2 usage errors.
 */
@Command(name = "pull", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Download a dataset from S3-compatible storage. Each shard is downloaded into DIR/"
        + DatasetPull.STAGING + ", checked (size, whole-file CRC32C against the manifest, structure, record count, "
        + "shard number) and only then renamed into place; the manifest is put in place last, so DIR is a dataset "
        + "only once complete, and it passes 'pinshard verify'.",
        "Rerun after a kill, it keeps the shards already in place that pass the same checks. A different dataset "
        + "in DIR is refused unless --force."},
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {"0:pulled (or already there)", "1:a shard failed its checks, or the store failed",
        "2:usage error, or another writer holds DIR (nothing is written)"})
final class PullCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "s3://BUCKET/PREFIX", description = "Where the dataset is.")
    String source;

    @Parameters(index = "1", paramLabel = "DIR", description = "Directory to download into: new (created), empty, or"
        + " an earlier pull's, to resume or update; a folder of other files is refused.")
    Path directory;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "4",
        description = "Shards downloaded at once (default ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--force", description = "Replace a different dataset in DIR (its manifest is deleted first) "
        + "and delete *.pinshard files there that the new manifest does not list.")
    boolean force;

    @Mixin
    TransferOptionsMixin transfer = new TransferOptionsMixin();

    @Override
    public Integer call() {
        S3Location from = S3Location.parse(source);
        PrintWriter out = transfer.out();
        S3Settings settings = transfer.s3.settings();
        PullOptions options = PullOptions.defaults().withThreads(threads).withForce(force)
            .withRetries(settings.maxAttempts(), settings.callTimeout());
        long start = System.nanoTime();
        PullResult result = transfer.run("pull", "received", "the manifest goes in last, so "
            + Printable.escape(directory.toString()) + " is a dataset only once a pull finishes; the rerun keeps the"
            + " shards in place", reporter -> {
                try (S3Client client = S3Clients.create(settings)) {
                    return new DatasetPull(client, options, reporter).pull(from, directory);
                }
            });
        double seconds = (System.nanoTime() - start) / 1e9;
        out.printf(Locale.ROOT, "pulled %s to %s: %d shard(s) downloaded and verified (%s), %d already in place (%s);"
                + " manifest %s%n", from, Printable.escape(directory.toString()), result.downloaded(),
            Units.bytes(result.downloadedBytes()), result.skipped(), Units.bytes(result.skippedBytes()),
            result.manifestWritten() ? "put in place last" : "unchanged (already there)");
        out.println(Units.wallTime(seconds, result.downloadedBytes() / 1e6, "MB"));
        out.flush();
        return 0;
    }
}
