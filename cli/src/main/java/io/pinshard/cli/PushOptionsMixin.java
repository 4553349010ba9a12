package io.pinshard.cli;

import io.pinshard.s3.transfer.PushOptions;
import picocli.CommandLine.Option;

/** How {@code push} and {@code convert --output s3://} upload. */
final class PushOptionsMixin {
    @Option(names = "--threads", paramLabel = "N", defaultValue = "4",
        description = "Shards uploaded at once (default ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--multipart-threshold", paramLabel = "SIZE", defaultValue = "64MiB",
        description = "Shards this large or larger go up in parts (default ${DEFAULT-VALUE}).")
    String multipartThreshold;

    @Option(names = "--part-size", paramLabel = "SIZE", defaultValue = "16MiB",
        description = "Bytes per part, at least 5MiB, S3's minimum (default ${DEFAULT-VALUE}; raised for a shard that "
            + "would need more than 10,000 parts).")
    String partSize;

    @Option(names = "--check", paramLabel = "LEVEL", defaultValue = "checksums",
        description = "What is verified locally before uploading: structure (manifest, files, each shard's structure "
            + "and index checksum; whole-file CRCs are still checked as shards are read for upload, but payload CRCs "
            + "are not), checksums (as verify --no-decode) or decode (as verify). Default: ${DEFAULT-VALUE}.")
    PushOptions.LocalCheck check;

    @Option(names = "--force", description = "Replace a different dataset at the destination: its manifest is deleted "
        + "before any shard is replaced.")
    boolean force;

    @Option(names = "--delete-stale", description = "After the manifest is in place, delete the *.pinshard objects "
        + "directly under the prefix that it does not list (an older dataset's leftovers). Other objects are never "
        + "touched.")
    boolean deleteStale;

    PushOptions options() {
        return new PushOptions(threads, SizeParser.parse(multipartThreshold), SizeParser.parse(partSize), check, force,
            deleteStale);
    }
}
