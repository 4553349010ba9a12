package io.pinshard.s3;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.reader.Problem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The node-wide cache of one remote dataset's shards: one directory shared by every rank and process on the node.
 * Only files that passed every check are ever found under a shard's name, and each is fetched once however many
 * processes want it. The protocol (docs/streaming.md, "Cache layout and locking"):
 *
 * <pre>
 * ROOT/shards/CRC/FILE          verified shards: FILE as listed, CRC its manifest CRC32C (a new dataset version
 *                               under the same prefix gets new names, never a stale file)
 * ROOT/locks/CRC-FILE.use       shared lock while a process holds the shard (mapped or fetched ahead);
 *                               an evictor deletes the shard only under an exclusive lock (no one holds it)
 * ROOT/locks/CRC-FILE.fetch     exclusive lock while one process downloads the shard; the others wait on it
 * ROOT/tmp/CRC-FILE.PID.N.part/FILE  a download in progress, unique to its process
 * </pre>
 *
 * To hold a shard: take the shared {@code .use} lock; if the shard file exists, done; else take the {@code .fetch}
 * lock, look again (another process may have finished it), delete the shard's other {@code .part} files (their
 * writers held the lock and are gone), download to a new {@code .part}, force it to disk, verify it (length, the
 * manifest's whole-file CRC32C as computed while the bytes arrived, structure, header, index, footer, section and
 * payload CRCs, gaps and labels: {@link DatasetVerifier#verifyDownloadedShard}), then rename it atomically into
 * place. A failed check deletes the part and
 * names what differed. The locks are OS file locks: they die with their process, so a process killed at any
 * moment blocks no one, and its part file is never taken for a shard (only renamed files count); the next
 * downloader of that shard, or {@link #sweepDeadParts} at open, deletes it. Shards of an earlier dataset version
 * go when a source opens the new one ({@link #evictUnlisted}), each under the same exclusive lock as an eviction.
 *
 * <p>Java file locks belong to the whole JVM and closing any channel of a file may drop them all, so one instance
 * per directory serves every source in this JVM ({@link #open}), with one channel per lock file, and threads of
 * the JVM are serialised per shard by a monitor of their own.
 */
public final class ShardCache implements AutoCloseable {
    private static final Map<Path, ShardCache> OPEN = new HashMap<>();

    private final Path root;
    private final Path shards;
    private final Path locks;
    private final Path tmp;
    private final Map<String, Object> monitors = new ConcurrentHashMap<>();
    private final Map<String, Held> held = new HashMap<>();
    private int users;

    /** What a downloader writes a shard's bytes with: into {@code part}, returning its ETag and CRC32C. */
    @FunctionalInterface
    public interface Download {
        ObjectDownload.Body to(Path part);
    }

    /** A shard this JVM holds: its {@code .use} channel and shared lock, and how many sources hold it. */
    private static final class Held {
        final FileChannel channel;
        final FileLock lock;
        final Path file;
        int holders;

        Held(FileChannel channel, FileLock lock, Path file) {
            this.channel = channel;
            this.lock = lock;
            this.file = file;
        }
    }

    private ShardCache(Path root) {
        this.root = root;
        this.shards = root.resolve("shards");
        this.locks = root.resolve("locks");
        this.tmp = root.resolve("tmp");
    }

    /** The cache in {@code root} (made if missing), shared with other users in this JVM; close once per open. */
    public static ShardCache open(Path root) {
        Path key = root.toAbsolutePath().normalize();
        synchronized (OPEN) {
            ShardCache cache = OPEN.get(key);
            if (cache == null) {
                cache = new ShardCache(key);
                try {
                    Files.createDirectories(cache.shards);
                    Files.createDirectories(cache.locks);
                    Files.createDirectories(cache.tmp);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot create the shard cache " + key + ": " + e.getMessage(), e);
                }
                cache.sweepDeadParts();
                OPEN.put(key, cache);
            }
            cache.users++;
            return cache;
        }
    }

    public Path root() {
        return root;
    }

    /** Where the verified shard for {@code entry} lives (whether or not it is there). */
    public Path shardFile(DatasetManifest.ShardEntry entry) {
        return shards.resolve(entry.crc32c()).resolve(entry.file());
    }

    private static String key(DatasetManifest.ShardEntry entry) {
        return entry.crc32c() + "-" + entry.file();
    }

    /**
     * Holds shard {@code position} of {@code manifest} for this JVM, downloading and verifying it first unless a
     * verified copy is there; returns the verified file. Each call must be matched by one {@link #release}.
     *
     * @param dataset             how errors name the dataset; {@code object} how they name the shard's object
     * @param expectedShardNumber the shard's header number ({@code ManifestRules.expectedShardNumbers}, computed
     *                            once per manifest by the caller)
     * @throws ShardFormatException naming the object and what differed when the download fails its checks
     */
    public Path hold(String dataset, String object, DatasetManifest manifest, int position, int expectedShardNumber,
                     Download download) {
        DatasetManifest.ShardEntry entry = manifest.shards().get(position);
        String key = key(entry);
        synchronized (monitor(key)) {
            Held h;
            synchronized (this) {
                h = held.get(key);
            }
            if (h != null) {
                h.holders++;
                return h.file;
            }
            Path file = shardFile(entry);
            FileChannel channel = null;
            FileLock lock = null;
            try {
                channel = FileChannel.open(locks.resolve(key + ".use"), StandardOpenOption.CREATE,
                    StandardOpenOption.READ, StandardOpenOption.WRITE);
                lock = channel.lock(0, Long.MAX_VALUE, true); // waits while an evictor deletes it
                if (!isComplete(file, entry)) {
                    fetch(dataset, object, manifest, position, expectedShardNumber, download, file);
                }
                h = new Held(channel, lock, file);
                h.holders = 1;
                synchronized (this) {
                    held.put(key, h);
                }
                return file;
            } catch (IOException e) {
                closeQuietly(lock, channel);
                throw new ShardFormatException(Kind.IO_ERROR, dataset, entry.file(), -1, "shard cache " + root + ": "
                    + e, e);
            } catch (RuntimeException | Error e) {
                closeQuietly(lock, channel);
                throw e;
            }
        }
    }

    /**
     * Lets go of one hold of shard {@code entry}. With {@code evict}, once this JVM holds it no more, the file is
     * deleted unless another process holds it (its shared lock makes the exclusive try fail).
     */
    public void release(DatasetManifest.ShardEntry entry, boolean evict) {
        String key = key(entry);
        synchronized (monitor(key)) {
            Held h;
            synchronized (this) {
                h = held.get(key);
                if (h == null || --h.holders > 0) {
                    return;
                }
                held.remove(key);
            }
            try {
                h.lock.release();
                if (evict) {
                    FileLock exclusive = h.channel.tryLock(0, Long.MAX_VALUE, false);
                    if (exclusive != null) {
                        try {
                            Files.deleteIfExists(h.file);
                        } finally {
                            exclusive.release();
                        }
                    }
                }
            } catch (IOException e) {
                // the file stays; a later evictor deletes it
            } finally {
                closeQuietly(null, h.channel);
            }
        }
    }

    /**
     * Deletes the cached shards {@code manifest} does not list (an earlier version of the dataset under the same
     * prefix: its files sit under other CRC folders), each only under an exclusive lock of its {@code .use} file,
     * so a shard another process (or a source of this JVM) still holds stays. Their lock files stay (empty); a
     * folder of another version left empty goes. Returns how many shard files were deleted.
     */
    public int evictUnlisted(DatasetManifest manifest) {
        Set<String> listed = new HashSet<>();
        Set<String> listedFolders = new HashSet<>();
        for (DatasetManifest.ShardEntry entry : manifest.shards()) {
            listed.add(key(entry));
            listedFolders.add(entry.crc32c());
        }
        int deleted = 0;
        try (DirectoryStream<Path> versions = Files.newDirectoryStream(shards)) {
            for (Path version : versions) {
                if (!Files.isDirectory(version, LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                try (DirectoryStream<Path> files = Files.newDirectoryStream(version)) {
                    for (Path file : files) {
                        String key = version.getFileName() + "-" + file.getFileName();
                        if (!listed.contains(key) && deleteIfFree(key, file)) {
                            deleted++;
                        }
                    }
                }
                if (!listedFolders.contains(version.getFileName().toString())) {
                    try {
                        Files.deleteIfExists(version); // only when empty
                    } catch (DirectoryNotEmptyException stillUsed) {
                        // a shard of that version is held, or was not ours to judge
                    }
                }
            }
        } catch (IOException | DirectoryIteratorException e) {
            // what could not be listed stays; the next open tries again
        }
        return deleted;
    }

    /** Deletes {@code file} (cache key {@code key}) if nobody holds it: this JVM not, no process's shared lock. */
    private boolean deleteIfFree(String key, Path file) {
        synchronized (monitor(key)) {
            synchronized (this) {
                if (held.containsKey(key)) {
                    return false;
                }
            }
            try (FileChannel channel = FileChannel.open(locks.resolve(key + ".use"), StandardOpenOption.CREATE,
                     StandardOpenOption.READ, StandardOpenOption.WRITE);
                 FileLock exclusive = channel.tryLock(0, Long.MAX_VALUE, false)) {
                return exclusive != null && Files.deleteIfExists(file);
            } catch (IOException | OverlappingFileLockException e) {
                return false;
            }
        }
    }

    /** Whether this JVM holds shard {@code entry} now. */
    public synchronized boolean holds(DatasetManifest.ShardEntry entry) {
        return held.containsKey(key(entry));
    }

    private void fetch(String dataset, String object, DatasetManifest manifest, int position,
                       int expectedShardNumber, Download download, Path file) throws IOException {
        DatasetManifest.ShardEntry entry = manifest.shards().get(position);
        String key = key(entry);
        try (FileChannel fetchChannel = FileChannel.open(locks.resolve(key + ".fetch"), StandardOpenOption.CREATE,
                 StandardOpenOption.READ, StandardOpenOption.WRITE);
             FileLock ignored = fetchChannel.lock()) { // one download per shard on the node
            if (isComplete(file, entry)) {
                return; // another process fetched it while this one waited
            }
            deleteParts(key); // theirs: whoever wrote them held this lock and is gone
            // The part keeps the shard's own name inside a directory unique to this download, so that what the
            // checks report names the shard.
            Path partDirectory = tmp.resolve(key + "." + ProcessHandle.current().pid() + "."
                + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36) + ".part");
            Path part = partDirectory.resolve(entry.file());
            Files.createDirectory(partDirectory);
            try {
                ObjectDownload.Body body = download.to(part);
                // The CRC32C computed as the bytes arrived stands for a pass reading the whole file back.
                List<Problem> problems = DatasetVerifier.checksumsOnly().verifyDownloadedShard(part, dataset,
                    manifest, position, expectedShardNumber, body.crc32c());
                if (!problems.isEmpty()) {
                    throw corrupt(dataset, object, body.etag(), entry, problems);
                }
                moveIntoPlace(part, file);
            } finally {
                deleteTree(partDirectory);
            }
        }
    }

    /**
     * Renames {@code part} to {@code file}, making its CRC folder first; once more if the folder vanished in
     * between ({@link #evictUnlisted} of another process deletes empty folders of versions it does not read).
     */
    private static void moveIntoPlace(Path part, Path file) throws IOException {
        for (int attempt = 1; ; attempt++) {
            Files.createDirectories(file.getParent());
            try {
                Files.move(part, file, StandardCopyOption.ATOMIC_MOVE);
                return;
            } catch (NoSuchFileException folderGone) {
                if (attempt == 3 || !Files.exists(part)) {
                    throw folderGone;
                }
            }
        }
    }

    private static ShardFormatException corrupt(String dataset, String object, String etag,
                                                DatasetManifest.ShardEntry entry, List<Problem> problems) {
        Problem first = problems.get(0);
        boolean replaced = problems.stream().anyMatch(p -> p.kind() == Kind.CHECKSUM_MISMATCH && p.record() < 0
            && p.detail().startsWith("file CRC32C"));
        String detail = object + " (ETag " + etag + ") failed its checks and was not cached: "
            + Problem.summary(problems)
            + (replaced ? " (the object differs from the one the manifest lists: replaced under the same key?)" : "");
        return new ShardFormatException(first.kind(), dataset, entry.file(), -1, detail, null);
    }

    /** A renamed shard file is complete and verified unless its length is off (a file changed by hand). */
    private static boolean isComplete(Path file, DatasetManifest.ShardEntry entry) throws IOException {
        try {
            if (Files.size(file) == entry.bytes()) {
                return true;
            }
        } catch (NoSuchFileException e) {
            return false;
        }
        Files.deleteIfExists(file); // not ours: the next holder downloads it again
        return false;
    }

    private void deleteParts(String key) throws IOException {
        try (DirectoryStream<Path> parts = Files.newDirectoryStream(tmp, glob(key) + ".*.part")) {
            for (Path part : parts) {
                deleteTree(part);
            }
        }
    }

    /** Deletes a part directory and the one file in it (or a plain file). */
    private static void deleteTree(Path part) throws IOException {
        if (Files.isDirectory(part, LinkOption.NOFOLLOW_LINKS)) {
            try (DirectoryStream<Path> inside = Files.newDirectoryStream(part)) {
                for (Path file : inside) {
                    Files.deleteIfExists(file);
                }
            }
        }
        Files.deleteIfExists(part);
    }

    /**
     * Deletes the part files of processes that no longer run (killed while downloading), without taking any lock.
     * A part of a live process is left alone; the next downloader of its shard removes it if it is stale.
     */
    public void sweepDeadParts() {
        try (DirectoryStream<Path> parts = Files.newDirectoryStream(tmp, "*.part")) {
            for (Path part : parts) {
                String[] pieces = part.getFileName().toString().split("\\.");
                if (pieces.length < 4) {
                    continue;
                }
                try {
                    long pid = Long.parseLong(pieces[pieces.length - 3]);
                    if (ProcessHandle.of(pid).isEmpty()) {
                        deleteTree(part);
                    }
                } catch (NumberFormatException | IOException e) {
                    // not one of ours, or gone already
                }
            }
        } catch (IOException e) {
            // an unreadable tmp directory shows at the first download
        }
    }

    private static String glob(String key) {
        return key.replaceAll("([*?\\[\\]{}\\\\])", "\\\\$1");
    }

    private Object monitor(String key) {
        return monitors.computeIfAbsent(key, k -> new Object());
    }

    private static void closeQuietly(FileLock lock, FileChannel channel) {
        try {
            if (lock != null && lock.isValid()) {
                lock.release();
            }
        } catch (IOException ignored) {
            // closing the channel releases it too
        }
        try {
            if (channel != null) {
                channel.close();
            }
        } catch (IOException ignored) {
            // nothing more to release
        }
    }

    /** One user fewer; the last releases every hold (keeping the files). */
    @Override
    public void close() {
        synchronized (OPEN) {
            if (--users > 0) {
                return;
            }
            OPEN.remove(root);
        }
        synchronized (this) {
            for (Held h : held.values()) {
                closeQuietly(h.lock, h.channel);
            }
            held.clear();
        }
    }
}
