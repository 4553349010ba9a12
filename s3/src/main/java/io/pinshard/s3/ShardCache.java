package io.pinshard.s3;

import io.pinshard.format.Crc32c;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.ShardFooterDescriptor;
import io.pinshard.format.ShardFooterFlyweight;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import io.pinshard.format.ShardHeaderDescriptor;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.reader.Problem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
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
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.LoggerFactory;

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
 * ROOT/installed/CRC-FILE       what the shard file was when it was installed: size, mtime, file key
 * ROOT/tmp/CRC-FILE.PID.N.part/FILE  a download in progress, unique to its process
 * </pre>
 *
 * To hold a shard: take the shared {@code .use} lock; if the shard file is there as it was installed (its size,
 * mtime and file key as recorded, its header and footer CRCs intact: {@link #unusable}), done; else take the
 * {@code .fetch} lock, look again (another process may have finished it; a file that fails those checks now is
 * deleted), delete the shard's other {@code .part} files (their
 * writers held the lock and are gone), download to a new {@code .part}, force it to disk, verify it (length, the
 * manifest's whole-file CRC32C as computed while the bytes arrived, structure, header, index, footer, section and
 * payload CRCs, gaps and labels: {@link DatasetVerifier#verifyDownloadedShard}), then rename it atomically into
 * place, and record what the installed file is. A failed check deletes the part and
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
    private final Path installed;
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
        /** The held file's identity (device and inode): a discard deletes that file, never a newer one. */
        final Object fileKey;
        int holders;

        Held(FileChannel channel, FileLock lock, Path file, Object fileKey) {
            this.channel = channel;
            this.lock = lock;
            this.file = file;
            this.fileKey = fileKey;
        }
    }

    private ShardCache(Path root) {
        this.root = root;
        this.shards = root.resolve("shards");
        this.locks = root.resolve("locks");
        this.tmp = root.resolve("tmp");
        this.installed = root.resolve("installed");
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
                    Files.createDirectories(cache.installed);
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
            Held h = heldNow(key);
            if (h != null) {
                h.holders++;
                return h.file;
            }
            Path file = shardFile(entry);
            FileChannel channel = null;
            FileLock lock = null;
            try {
                channel = lockFile(key, ".use");
                lock = channel.lock(0, Long.MAX_VALUE, true); // waits while an evictor deletes it
                if (unusable(file, entry) != null) {
                    fetch(dataset, object, manifest, position, expectedShardNumber, download, file);
                }
                h = new Held(channel, lock, file, Files.readAttributes(file, BasicFileAttributes.class).fileKey());
                h.holders = 1;
                synchronized (this) {
                    held.put(key, h);
                }
                return file;
            } catch (IOException e) {
                closeQuietly(lock, channel);
                throw new ShardFormatException(Kind.IO_ERROR, dataset, entry.file(), -1, "shard cache " + root + ": "
                    + e + DiskRoom.note(root, entry.bytes(), e), e);
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
     * A read found the shard this JVM holds for {@code entry} corrupt (a payload CRC, the index, {@code verify}):
     * deletes its file, if it is still the file held (not a copy another process fetched since), under the
     * {@code .fetch} lock, so that the next {@link #hold} downloads it again; then lets go of one hold, as {@link
     * #release} does. Another process that has the bad file mapped keeps reading it until its own checks find it.
     */
    public void discard(DatasetManifest.ShardEntry entry) {
        String key = key(entry);
        synchronized (monitor(key)) {
            Held h = heldNow(key);
            if (h != null) {
                try (FileChannel fetchChannel = lockFile(key, ".fetch");
                     FileLock ignored = fetchChannel.lock()) {
                    if (h.fileKey != null && h.fileKey.equals(fileKey(h.file))) {
                        Files.deleteIfExists(installed.resolve(key));
                        Files.deleteIfExists(h.file);
                    }
                } catch (IOException e) {
                    // the file stays; the next hold's checks or a later discard delete it
                }
            }
            release(entry, false);
        }
    }

    private synchronized Held heldNow(String key) {
        return held.get(key);
    }

    /** The lock file {@code locks/KEY.SUFFIX}, made if missing (empty; it stays), opened for a lock. */
    private FileChannel lockFile(String key, String suffix) throws IOException {
        return FileChannel.open(locks.resolve(key + suffix), StandardOpenOption.CREATE, StandardOpenOption.READ,
            StandardOpenOption.WRITE);
    }

    private static Object fileKey(Path file) {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        } catch (IOException e) {
            return null;
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
            try (FileChannel channel = lockFile(key, ".use");
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
        try (FileChannel fetchChannel = lockFile(key, ".fetch");
             FileLock ignored = fetchChannel.lock()) { // one download per shard on the node
            String unusable = unusable(file, entry);
            if (unusable == null) {
                return; // another process fetched it while this one waited
            }
            if (unusable != MISSING) {
                // Under the lock every downloader of this shard takes: no one installs a new copy meanwhile.
                LoggerFactory.getLogger(ShardCache.class).warn("{}: the cached copy {} {}; evicted, fetching it again",
                    object, file, unusable);
                Files.deleteIfExists(installed.resolve(key));
                Files.deleteIfExists(file);
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
                recordInstall(key, part); // a rename keeps size, mtime and inode
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

    /** What {@link #unusable} says of a shard file that is not there. */
    private static final String MISSING = "is missing";

    /**
     * Why the file under a shard's name may not be served as the verified shard, or null when it may: it must be
     * there with the manifest's length, as it was when it was installed (size, mtime in ns and file key as
     * {@link #recordInstall} wrote them: a file written, copied or moved over since fails), and its header and
     * footer must pass their own CRC32Cs (two small reads, no pass over the file). A change that keeps size, mtime
     * and inode (a bit flipped on the disk, {@code touch -d} after a write) is left to the checks of every read
     * ({@code --crc}, {@code verify}), which {@link #discard} the copy when they find it.
     */
    private String unusable(Path file, DatasetManifest.ShardEntry entry) throws IOException {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return MISSING;
        }
        if (!attributes.isRegularFile()) {
            return "is not a regular file";
        }
        if (attributes.size() != entry.bytes()) {
            return "holds " + attributes.size() + " bytes, the manifest lists " + entry.bytes();
        }
        String now = installRecord(attributes);
        String then;
        try {
            then = Files.readString(installed.resolve(key(entry)), StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            return "has no install record (" + installed.resolve(key(entry)) + ")";
        }
        if (!now.equals(then)) {
            return "changed since it was installed (size, mtime, file key: " + now.strip() + ", installed as "
                + then.strip() + ")";
        }
        return frameProblem(file, entry.bytes());
    }

    /** The header's and footer's own checks (magic, CRC32C, reserved bytes; the footer's file length), or null. */
    private static String frameProblem(Path file, long length) throws IOException {
        if (length < ShardHeaderDescriptor.LENGTH + ShardFooterDescriptor.LENGTH) {
            return "holds " + length + " bytes, too few for a header and a footer";
        }
        ByteBuffer header = ByteBuffer.allocate(ShardHeaderDescriptor.LENGTH);
        ByteBuffer footer = ByteBuffer.allocate(ShardFooterDescriptor.LENGTH);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            readFully(channel, header, 0);
            readFully(channel, footer, length - ShardFooterDescriptor.LENGTH);
        }
        Crc32c crc = new Crc32c();
        try {
            ShardHeaderDescriptor.checkHeader(new UnsafeBuffer(header.array()), 0, crc);
            UnsafeBuffer footerBytes = new UnsafeBuffer(footer.array());
            ShardFooterDescriptor.checkFooter(footerBytes, 0, crc);
            long recorded = new ShardFooterFlyweight().wrap(footerBytes, 0).fileLength();
            if (recorded != length) {
                return "has a footer that records a file of " + recorded + " bytes, not " + length;
            }
        } catch (ShardFormatException e) {
            return "fails its frame check: " + e.getMessage();
        }
        return null;
    }

    private static void readFully(FileChannel channel, ByteBuffer into, long at) throws IOException {
        while (into.hasRemaining()) {
            if (channel.read(into, at + into.position()) < 0) {
                throw new IOException("end of file at " + (at + into.position()));
            }
        }
    }

    /** One line: size, mtime in ns, file key (device and inode on Linux). */
    private static String installRecord(BasicFileAttributes attributes) {
        return attributes.size() + " " + attributes.lastModifiedTime().to(TimeUnit.NANOSECONDS) + " "
            + attributes.fileKey() + "\n";
    }

    /**
     * Records what the checked {@code part} is ({@link #installRecord}; the rename that installs it keeps all
     * three), under the {@code .fetch} lock, through a temporary file renamed into place, before the part takes the
     * shard's name: a shard file is never there without its record. (A full disk fails here, and the part goes.)
     */
    private void recordInstall(String key, Path part) throws IOException {
        Path record = installed.resolve(key);
        Path temporary = installed.resolve(key + "." + ProcessHandle.current().pid() + ".tmp");
        try {
            Files.writeString(temporary, installRecord(Files.readAttributes(part, BasicFileAttributes.class,
                LinkOption.NOFOLLOW_LINKS)), StandardCharsets.US_ASCII);
            Files.move(temporary, record, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temporary);
        }
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
