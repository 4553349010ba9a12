package io.pinshard.cli;

import io.pinshard.baseline.inputs.ImageCollection;
import io.pinshard.reader.Dataset;
import io.pinshard.s3.S3DatasetProvider;
import io.pinshard.s3.S3Location;
import io.pinshard.s3.S3ShardSource;
import io.pinshard.writer.convert.SizeParser;
import java.nio.file.Path;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * How the commands that read a dataset (inspect, verify, bench, preview, serve) open their DATASET argument: a
 * local directory, or {@code s3://bucket/prefix} through the node-wide shard cache, with the S3 connection options
 * ({@link S3OptionsMixin}) and the cache's own, opened by {@link S3DatasetProvider#source} as
 * {@code Dataset.open("s3://...")} opens it.
 */
final class DatasetLocationMixin {
    @Mixin
    S3OptionsMixin s3 = new S3OptionsMixin();

    /** Beside the S3 options at the end of --help, not among each command's options. */
    @ArgGroup(validate = false, heading = "%nShard cache (for s3:// datasets):%n", order = 101)
    Cache cache = new Cache();

    /** The cache's options; an argument group keeps these defaults when none is given. */
    static final class Cache {
        @Option(names = "--cache-dir", paramLabel = "DIR", description = "Shard cache for s3:// datasets, shared "
            + "by every rank and process on the node: each dataset gets DIR/<bucket>/<hash of endpoint and prefix> "
            + "(default: s3/ in pinshard's cache folder, ~/.cache/pinshard/s3; see pinshard --help).")
        Path cacheDir;

        @Option(names = "--cache-limit", paramLabel = "SIZE", description = "Bytes of an s3:// dataset's shards this "
            + "process may hold in the cache at once, e.g. 8GiB (default: no limit; every shard stays). The loader "
            + "fetches ahead in the order it will read and evicts what this epoch no longer needs; below the dataset's "
            + "size it needs --order quasi-random or sequential.")
        String cacheLimit;
    }

    /** Opens {@code location}: a directory as always, {@code s3://} through the cache. */
    Dataset open(String location) {
        cacheLimit(); // a bad --cache-limit is refused also where a local dataset has no use for it
        return S3Location.isRemote(location) ? Dataset.open(source(location)) : Dataset.open(Path.of(location));
    }

    /**
     * The --cache-limit in bytes ({@code Long.MAX_VALUE} when not given).
     *
     * @throws IllegalArgumentException naming the option when it is not a size above zero
     */
    long cacheLimit() {
        if (cache.cacheLimit == null) {
            return Long.MAX_VALUE;
        }
        try {
            return SizeParser.parse(cache.cacheLimit);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--cache-limit " + e.getMessage(), e);
        }
    }

    /** The cache-backed source of an {@code s3://} location. */
    S3ShardSource source(String location) {
        S3Location parsed = S3Location.parse(location);
        var settings = s3.settings();
        return S3DatasetProvider.source(parsed, settings,
            cache.cacheDir != null ? cache.cacheDir : ImageCollection.defaultCacheRoot().resolve("s3"), cacheLimit());
    }
}
