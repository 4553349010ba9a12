package io.pinshard.s3.transfer;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.DatasetWriteLock;
import io.pinshard.format.Json;
import io.pinshard.format.ShardFormatException;
import io.pinshard.s3.ObjectDownload;
import io.pinshard.s3.S3Location;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * Downloads a dataset from {@code s3://bucket/prefix} into a local directory that is a dataset only once every
 * shard in it is verified: each shard is downloaded into the staging folder {@value #STAGING} inside the
 * directory (same file system), checked and renamed into place by {@link ShardInstaller}, and the manifest is
 * renamed in last. Each shard comes down through {@link ObjectDownload}, the streamed cache's loop (resumed, retried
 * within the options' attempts and time). Rerun after a kill, it keeps every shard already in place that passes the same checks and
 * downloads the rest; the staging folder's leftovers are discarded. The result passes {@code pinshard verify}.
 */
public final class DatasetPull {
    /** The folder inside the destination that holds downloads until they are verified. */
    public static final String STAGING = ".pinshard-pull";
    /** What a refused second writer is told holds the directory. */
    public static final String WRITER = "pinshard pull";
    /** The largest manifest read: far above any real one (a shard entry is ~100 bytes), far below the heap. */
    static final long MAX_MANIFEST_BYTES = 256L << 20;

    private final S3Client s3;
    private final ObjectDownload downloader;
    private final PullOptions options;
    private final TransferProgress progress;

    /** A pull through {@code s3} (not closed here), reporting to {@code progress}. */
    public DatasetPull(S3Client s3, PullOptions options, TransferProgress progress) {
        this.s3 = s3;
        this.downloader = new ObjectDownload(s3, options.attempts(), options.callTimeout());
        this.options = options;
        this.progress = progress;
    }

    /**
     * Pulls {@code from} into {@code directory} (created if needed).
     *
     * @throws TransferException naming the object and what differed or failed; nothing unverified is renamed into
     *                           place, and the directory has no manifest unless every shard is in place
     * @throws io.pinshard.format.DatasetBusyException when another writer holds {@code directory}: nothing is written
     */
    public PullResult pull(S3Location from, Path directory) {
        checkDestination(directory);
        String manifestUri = from.uri(DatasetManifest.FILE_NAME);
        byte[] manifestBytes = getManifest(from);
        DatasetManifest manifest;
        try {
            manifest = Json.parseManifest(manifestBytes, from.toString());
        } catch (ShardFormatException e) {
            throw new TransferException(manifestUri + ": " + e.detail(), e);
        }
        for (DatasetManifest.ShardEntry entry : manifest.shards()) {
            // Plain unique names are the manifest rules'; these three would land on the pull's own files.
            if (entry.file().equals(DatasetManifest.FILE_NAME) || entry.file().equals(STAGING)
                || entry.file().equals(DatasetWriteLock.FILE_NAME)) {
                throw new TransferException(manifestUri + ": lists a shard named " + entry.file()
                    + ", which a pull cannot write");
            }
        }
        // Held from before the directory is first touched until the manifest is in place.
        DatasetWriteLock lock;
        try {
            lock = DatasetWriteLock.hold(directory, WRITER);
        } catch (IOException e) {
            throw new TransferException("cannot take the write lock of " + directory + ": " + e, e);
        }
        try (lock) {
            return pullInto(from, directory, manifest, manifestBytes);
        } catch (IOException e) {
            throw new TransferException("cannot release the write lock of " + directory + ": " + e, e);
        }
    }

    private PullResult pullInto(S3Location from, Path directory, DatasetManifest manifest, byte[] manifestBytes) {
        Path staging = directory.resolve(STAGING);
        try {
            Files.createDirectories(staging);
            Files.write(staging.resolve(DatasetManifest.FILE_NAME), manifestBytes);
        } catch (IOException e) {
            throw new TransferException("cannot write " + staging + ": " + e, e);
        }
        boolean same = prepareDirectory(directory, manifest, manifestBytes);
        ShardInstaller installer = new ShardInstaller(manifest, from.toString());
        ShardTransfer.Tally tally = ShardTransfer.run(manifest, options.threads(), "pinshard-pull", "pull from " + from,
            progress, new ShardTransfer.Direction() {
                @Override
                public boolean inPlace(int position, DatasetManifest.ShardEntry entry) {
                    Path target = directory.resolve(entry.file());
                    return Files.isRegularFile(target) && installer.check(target, position) == null;
                }

                @Override
                public void send(int position, DatasetManifest.ShardEntry entry) {
                    downloadShard(from, directory.resolve(entry.file()), staging, entry, installer, position);
                }
            });
        try {
            if (!same) {
                Files.move(staging.resolve(DatasetManifest.FILE_NAME), directory.resolve(DatasetManifest.FILE_NAME),
                    StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
            deleteStaging(staging);
        } catch (IOException e) {
            throw new TransferException("cannot move the manifest into " + directory + ": " + e, e);
        }
        return new PullResult(tally.sent.get(), tally.skipped.get(), tally.sentBytes.get(), tally.skippedBytes.get(),
            !same);
    }

    /**
     * Refuses, before any request, a destination that is a file or a folder of other things (an image folder, a
     * home directory): a pull never deletes files it did not write, so it would mix a dataset into them. Hidden
     * names are left out (the staging folder, lock files), as are a dataset's own names (a rerun, a --force).
     */
    static void checkDestination(Path directory) {
        if (Files.exists(directory) && !Files.isDirectory(directory)) {
            throw new TransferException(directory + " is a file, not a directory: nothing downloaded; give pull a new"
                + " or empty directory");
        }
        if (!Files.isDirectory(directory)) {
            return;
        }
        List<String> others = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!name.startsWith(".") && !name.equals(DatasetManifest.FILE_NAME) && !name.endsWith(".pinshard")) {
                    others.add(name);
                }
            }
        } catch (IOException e) {
            throw new TransferException("cannot list " + directory + ": " + e, e);
        }
        if (!others.isEmpty()) {
            others.sort(null);
            throw new TransferException(directory + " holds files that are not a pinshard dataset's (" + others.size()
                + ": " + String.join(", ", others.subList(0, Math.min(3, others.size())))
                + (others.size() > 3 ? ", ..." : "") + "): nothing downloaded; give pull a new or empty directory"
                + " (pull never deletes files it did not write)");
        }
    }

    /**
     * Refuses a directory holding another dataset unless forced, in which case its manifest goes first (it is not a
     * dataset while the pull runs) and its unlisted shards with it. Returns whether the same manifest is there.
     */
    private boolean prepareDirectory(Path directory, DatasetManifest manifest, byte[] manifestBytes) {
        Path local = directory.resolve(DatasetManifest.FILE_NAME);
        try {
            boolean same = false;
            if (Files.exists(local)) {
                same = Files.isRegularFile(local) && Arrays.equals(Files.readAllBytes(local), manifestBytes);
                if (!same && !options.force()) {
                    throw new TransferException(directory + " already holds a different dataset: nothing downloaded; "
                        + "--force replaces it (its manifest is deleted first)");
                }
                if (!same) {
                    Files.delete(local);
                }
            }
            Set<String> listed = new HashSet<>();
            manifest.shards().forEach(s -> listed.add(s.file()));
            List<Path> unlisted = new ArrayList<>();
            try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*.pinshard")) {
                for (Path file : files) {
                    if (!listed.contains(file.getFileName().toString())) {
                        unlisted.add(file);
                    }
                }
            }
            if (!unlisted.isEmpty() && !options.force()) {
                throw new TransferException(directory + " holds " + unlisted.size() + " shard file(s) the dataset "
                    + "does not list (" + unlisted.get(0).getFileName() + (unlisted.size() > 1 ? ", ..." : "")
                    + "): nothing downloaded; --force deletes them");
            }
            for (Path file : unlisted) {
                Files.delete(file);
            }
            return same;
        } catch (IOException e) {
            throw new TransferException("cannot prepare " + directory + ": " + e, e);
        }
    }

    private void downloadShard(S3Location from, Path target, Path staging, DatasetManifest.ShardEntry entry,
                               ShardInstaller installer, int position) {
        Path staged = staging.resolve(entry.file());
        String uri = from.uri(entry.file());
        ShardInstaller.deleteQuietly(staged); // a kill's leftover: the download starts a new file
        ObjectDownload.Body body;
        try {
            body = downloader.to(staged, from.bucket(), from.key(entry.file()), entry.bytes(), uri,
                response -> storedCrcProblem(response, entry), progress::bytes);
        } catch (ObjectDownload.DownloadException e) {
            ShardInstaller.deleteQuietly(staged);
            throw new TransferException(e.getMessage(), e);
        }
        installer.install(staged, target, position, uri, body.crc32c());
    }

    /** The object's own CRC32C metadata (set by push), when present, must be the manifest's. */
    private static String storedCrcProblem(GetObjectResponse response, DatasetManifest.ShardEntry entry) {
        String stored = response.metadata().get(ObjectNames.CRC32C_METADATA);
        return stored == null || stored.equals(entry.crc32c()) ? null : "object's " + ObjectNames.CRC32C_METADATA
            + " metadata is " + stored + ", the manifest says " + entry.crc32c() + " (another dataset's shard?)";
    }

    private byte[] getManifest(S3Location from) {
        String uri = from.uri(DatasetManifest.FILE_NAME);
        try (ResponseInputStream<GetObjectResponse> body = s3.getObject(
            b -> b.bucket(from.bucket()).key(from.key(DatasetManifest.FILE_NAME)))) {
            Long length = body.response().contentLength();
            if (length != null && length > MAX_MANIFEST_BYTES) {
                body.abort();
                throw new TransferException(uri + ": " + length + " bytes, more than the " + MAX_MANIFEST_BYTES
                    + " a manifest may hold");
            }
            return body.readNBytes((int) MAX_MANIFEST_BYTES);
        } catch (NoSuchKeyException e) {
            throw new TransferException(uri + ": missing: " + from + " is not a dataset (or its push did not finish)", e);
        } catch (SdkException e) {
            throw new TransferException(uri + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new TransferException(uri + ": " + e, e);
        }
    }

    private static void deleteStaging(Path staging) throws IOException {
        try (DirectoryStream<Path> left = Files.newDirectoryStream(staging)) {
            for (Path file : left) {
                Files.deleteIfExists(file);
            }
        }
        Files.deleteIfExists(staging);
    }
}
