package io.pinshard.reader;

import io.pinshard.format.DatasetFiles;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.format.ManifestRules;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A dataset directory on this machine as a {@link ShardSource}: every shard is a local file already, so nothing is
 * fetched, held or let go. {@link #open} reads the manifest and checks every listed file by the dataset's file rules
 * ({@link DatasetFiles}: a regular file inside the directory, listed once, of the manifest's length) before any is
 * mapped; {@link #acquire} checks the length again, since the file may have changed since. Refuses use after close.
 */
public final class LocalShardSource implements ShardSource {
    private final Path directory;
    private final String location;
    private final DatasetManifest manifest;
    private final Path[] files;
    private volatile boolean closed;

    private LocalShardSource(Path directory, DatasetManifest manifest, Path[] files) {
        this.directory = directory;
        this.location = directory.toString();
        this.manifest = manifest;
        this.files = files;
    }

    /**
     * Opens the dataset in {@code directory}: its manifest read and checked, every listed shard file checked.
     *
     * @throws ShardFormatException naming the directory (and the shard) when it is not a dataset or a file breaks
     *                              the rules
     */
    public static LocalShardSource open(Path directory) {
        DatasetDirectory.check(directory);
        DatasetManifest manifest = Json.readManifest(directory);
        DatasetFiles rules = DatasetFiles.of(directory, manifest);
        Path[] files = new Path[manifest.shards().size()];
        for (int i = 0; i < files.length; i++) {
            files[i] = rules.checkShard(i); // once each: a file listed twice under two names is refused here
        }
        return new LocalShardSource(directory, manifest, files);
    }

    @Override
    public String location() {
        return location;
    }

    @Override
    public Path directory() {
        return directory;
    }

    @Override
    public DatasetManifest manifest() {
        return manifest;
    }

    @Override
    public boolean local() {
        return true;
    }

    @Override
    public long limitBytes() {
        return Long.MAX_VALUE;
    }

    /** None: every shard is at hand, there is nothing to fetch ahead. */
    @Override
    public int fetchConcurrency() {
        return 0;
    }

    @Override
    public long bytesFetched() {
        return 0;
    }

    /** Shard {@code index}'s file, its length checked against the manifest again. */
    @Override
    public Path acquire(int index) {
        if (closed) {
            throw new IllegalStateException("source " + location + " is closed");
        }
        DatasetManifest.ShardEntry entry = manifest.shards().get(index);
        try {
            ManifestRules.checkShardSize(location, entry, Files.size(files[index]));
        } catch (IOException e) {
            throw new ShardFormatException(Kind.IO_ERROR, location, entry.file(), -1, "cannot read: " + e, e);
        }
        return files[index];
    }

    /** Nothing to let go: the file stays where it is. */
    @Override
    public void release(int index) {
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return "LocalShardSource[" + location + "]";
    }
}
