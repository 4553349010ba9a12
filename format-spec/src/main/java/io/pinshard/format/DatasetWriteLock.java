package io.pinshard.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * "This process writes dataset directory D": an OS lock ({@link FileChannel#tryLock}) on {@value #FILE_NAME} inside
 * D, which every writer of a local dataset directory (convert, merge, pull, the demo) takes before it touches D and
 * holds until it ends. A second writer is refused at once, never made to wait, with a {@link DatasetBusyException}
 * naming D, the lock file and the holder (its PID, what it is and its command line, which the holder writes into
 * the file). Readers (inspect, verify, bench, the loader, serve) take nothing.
 *
 * <p>The lock is the OS lock, not the file: the OS drops it when its process ends however it ends, so a writer
 * killed with {@code kill -9} leaves a file that the next writer simply takes (and a killed convert resumes). A
 * holder that ends normally deletes the file, so a finished directory holds exactly the dataset ({@code diff -r}
 * against another run stays clean). Inside D rather than beside it: the lock then follows D through any path or
 * link to it, needs no writable parent ({@code -o /}, a mount point, a parent owned by root), and adds no sibling
 * that a glob such as {@code merge parts/*} would pick up. Every reader ignores it: readers read only what the
 * manifest lists (SPEC.md section 13), {@code verify} reports only unlisted {@code *.pinshard} files, push uploads
 * only listed shards, and a resumed convert counts it as its own.
 *
 * <p>Why in format-spec: the name is part of the dataset directory's layout that readers must ignore (SPEC.md
 * section 13), and every writer sits on this module; the s3 module's pull depends on format-spec and the reader, not
 * on the writer module (nor its OpenCV natives), and must take the same lock.
 *
 * <p>One JVM: POSIX drops every lock a process holds on a file when it closes any descriptor of that file, so a
 * second channel opened and closed on a held lock file would silently release the first holder's lock. This class
 * therefore keeps the locks its JVM holds in one table, by file identity, and refuses a second writer from that
 * table before opening anything: two writers in one process are refused exactly as two processes are.
 */
public final class DatasetWriteLock implements AutoCloseable {
    /** The lock file's name inside the dataset directory. */
    public static final String FILE_NAME = ".pinshard-writer.lock";
    /** The most of a lock file read for its holder: a few short lines, so a larger file is not ours to trust. */
    static final int MAX_HOLDER_BYTES = 4096;
    /** Takes tried when each found the file deleted or replaced (its holder letting go as this one took it). */
    private static final int ATTEMPTS = 5;

    /** The write locks this JVM holds, by lock-file identity; the monitor for taking and releasing them. */
    private static final Map<Object, DatasetWriteHolder> HELD = new HashMap<>();
    /**
     * Channels refused with {@link OverlappingFileLockException} (a lock on the file taken in this JVM by code other
     * than this class): closing them would release that other lock, so they stay open.
     */
    private static final List<FileChannel> KEPT_OPEN = new ArrayList<>();

    private final Path directory;
    private final Path file;
    private final Object identity;
    private final FileChannel channel;
    private final DatasetWriteHolder holder;
    private boolean released;

    private DatasetWriteLock(Path directory, Path file, Object identity, FileChannel channel,
                             DatasetWriteHolder holder) {
        this.directory = directory;
        this.file = file;
        this.identity = identity;
        this.channel = channel;
        this.holder = holder;
    }

    /**
     * Takes the write lock of {@code directory} (created if missing) for this process, as {@code writer} (what the
     * refusal of another calls it: {@code "pinshard convert"}).
     *
     * @throws DatasetBusyException when another process, or another writer in this one, holds it
     * @throws IOException          when the directory or lock file cannot be made or locked
     */
    public static DatasetWriteLock hold(Path directory, String writer) throws IOException {
        Objects.requireNonNull(writer, "writer");
        Files.createDirectories(directory);
        Path file = directory.resolve(FILE_NAME);
        synchronized (HELD) {
            for (int attempt = 1; ; attempt++) {
                DatasetWriteLock lock = tryHold(directory, file, writer);
                if (lock != null) {
                    return lock;
                }
                if (attempt == ATTEMPTS) {
                    throw new IOException("cannot lock " + file + ": it was deleted or replaced " + ATTEMPTS
                        + " times as it was being locked");
                }
            }
        }
    }

    /** The lock, or null when the file was deleted or replaced meanwhile (try again). */
    private static DatasetWriteLock tryHold(Path directory, Path file, String writer) throws IOException {
        try {
            Files.createFile(file);
        } catch (FileAlreadyExistsException e) {
            // a holder's, or left by a killed one: the OS lock tells which
        }
        Object identity = identity(file);
        if (identity == null) {
            return null;
        }
        DatasetWriteHolder here = HELD.get(identity);
        if (here != null) {
            throw new DatasetBusyException(directory, file, here, true);
        }
        FileChannel channel;
        try {
            channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        }
        boolean keep = false;
        try {
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                keep = true;
                KEPT_OPEN.add(channel);
                throw new DatasetBusyException(directory, file, readHolder(channel), true);
            }
            if (lock == null) {
                throw new DatasetBusyException(directory, file, readHolder(channel), false);
            }
            // The file locked must still be the one at the name: a holder deletes it as it lets go.
            if (!identity.equals(identity(file))) {
                return null;
            }
            DatasetWriteHolder mine = DatasetWriteHolder.ofThisProcess(writer);
            byte[] text = mine.text().getBytes(StandardCharsets.UTF_8);
            channel.write(ByteBuffer.wrap(text), 0);
            channel.truncate(text.length);
            HELD.put(identity, mine);
            keep = true;
            return new DatasetWriteLock(directory, file, identity, channel, mine);
        } finally {
            if (!keep) {
                channel.close();
            }
        }
    }

    /** The file's identity (device and inode where the file system has them), or null when it is gone. */
    private static Object identity(Path file) throws IOException {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        }
        if (!attributes.isRegularFile()) {
            // A FIFO would block the open; a link could point anywhere.
            throw new IOException(file + " is not a regular file: remove it, pinshard's write lock takes that name");
        }
        return attributes.fileKey() != null ? attributes.fileKey() : file.toRealPath();
    }

    /** What a lock file names as its holder, read through {@code channel} (not a second descriptor). */
    private static DatasetWriteHolder readHolder(FileChannel channel) {
        ByteBuffer buffer = ByteBuffer.allocate(MAX_HOLDER_BYTES);
        try {
            while (buffer.hasRemaining() && channel.read(buffer, buffer.position()) > 0) {
                // fills the buffer or reaches the end
            }
        } catch (IOException e) {
            return DatasetWriteHolder.UNKNOWN;
        }
        return DatasetWriteHolder.parse(new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8));
    }

    /** The dataset directory this lock is for. */
    public Path directory() {
        return directory;
    }

    /** The lock file, {@code directory/}{@value #FILE_NAME}. */
    public Path file() {
        return file;
    }

    /** This process, as written into the lock file. */
    public DatasetWriteHolder holder() {
        return holder;
    }

    /** Deletes the lock file (when it is still this lock's) and releases the lock; once. */
    @Override
    public void close() throws IOException {
        synchronized (HELD) {
            if (released) {
                return;
            }
            released = true;
            try {
                // Nobody else deletes or replaces the file while this lock holds it; a delete of the whole
                // directory (convert's s3 staging) may have removed it already.
                if (identity.equals(identity(file))) {
                    Files.deleteIfExists(file);
                }
            } finally {
                HELD.remove(identity);
                channel.close();
            }
        }
    }
}
