package io.pinshard.serve;

import static io.pinshard.serve.RingDescriptor.*;

import io.pinshard.memory.NativeRegion;
import io.pinshard.memory.OwnedRegion;
import io.pinshard.memory.RegionCountingAllocator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.agrona.BufferUtil;
import org.agrona.CloseHelper;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The ring file on the server's side, and the loader's {@link io.pinshard.memory.BatchMemoryAllocator}: the loader
 * asks for its slots one by one and gets regions carved from the file's mapping, so its workers write batches
 * where the client reads them. The first allocation fixes the slot size and creates the file under a temporary
 * name; {@link #publish} writes the header and renames it into place, so a client never sees half a ring.
 * {@link #close()} unlinks the file (only if the path still names this server's file) and unmaps it.
 *
 * <p>An existing file at the path is replaced only when it is a ring whose server is gone (a crash left it); a live
 * server's ring or a file that is not a ring is refused, naming it.
 *
 * <p>Another process can truncate or overwrite the file under the mapping, so the ring is {@linkplain
 * #sharedWithOtherProcesses() shared memory} to the loader (no native code writes it) and {@link #damaged()} says,
 * from the file's length and header read through the channel (never through the mapping, which could fault), when
 * that happened. Writes after a truncation are skipped, and the mapping is then left to the process's exit: a write
 * into lost pages faults, and HotSpot reports that fault a little later in the writing thread, which inside the
 * unmapping Cleaner would end the JVM ("Cleaner terminated abnormally").
 */
public final class RingFile extends RegionCountingAllocator implements AutoCloseable {
    private static final String TEMP_INFIX = ".tmp-";

    private final Path path;
    private final int slots;
    private final boolean[] taken;
    private Path tempPath;
    private FileChannel channel;
    private MappedByteBuffer mapping;
    private UnsafeBuffer buffer;
    private Object fileKey;
    private RingReaper reaper;
    private long slotsOffset;
    private long stride;
    private long slotBytes;
    private long fileLength;
    /** The header as this server wrote it (read-only once published), and a buffer to read the file's back into. */
    private final byte[] publishedHeader = new byte[HEADER_END];
    private final ByteBuffer headerInFile = ByteBuffer.allocateDirect(HEADER_END);
    private boolean published;
    private boolean closed;
    /** The server's views of the header and of its block: publish, status and message write through them. */
    private final RingHeader header = new RingHeader();
    private final RingServerBlock serverBlock = new RingServerBlock();

    private RingFile(Path path, int slots) {
        super("ring");
        this.path = path;
        this.slots = slots;
        this.taken = new boolean[slots];
    }

    /**
     * A ring of {@code slots} slots at {@code path}, not yet created: clears a stale ring (and temporary files of
     * dead servers) there first.
     *
     * @throws IllegalStateException when a live server owns the ring at {@code path}, or the path holds a file that
     *                               is not a ring
     */
    public static RingFile prepare(Path path, int slots) {
        checkSlots(slots);
        Path absolute = path.toAbsolutePath();
        Path parent = absolute.getParent();
        if (parent == null || !Files.isDirectory(parent)) {
            throw new IllegalArgumentException("ring " + path + ": directory " + parent + " does not exist");
        }
        clearDeadTemporaries(absolute);
        if (RingDirectory.checkOwnRingFile(absolute)) { // lstat first: another user's file, a FIFO, a link refused
            RingOwner owner = RingOwner.read(absolute);
            if (owner == null) {
                throw new IllegalStateException(path + " exists and is not a pinshard ring: refusing to replace it "
                    + "(remove it or choose another --ring)");
            }
            if (owner.alive()) {
                throw new IllegalStateException("ring " + path + " is in use by pinshard serve (pid " + owner.pid()
                    + "): stop that server or choose another --ring");
            }
            try {
                Files.deleteIfExists(absolute); // a crashed server's ring: never blocks a restart
            } catch (IOException e) {
                throw new UncheckedIOException("cannot remove the stale ring " + path, e);
            }
        }
        return new RingFile(absolute, slots);
    }

    private static void clearDeadTemporaries(Path ring) {
        String prefix = ring.getFileName() + TEMP_INFIX;
        try (DirectoryStream<Path> siblings = Files.newDirectoryStream(ring.getParent(), prefix + "*")) {
            for (Path sibling : siblings) {
                String pid = sibling.getFileName().toString().substring(prefix.length());
                if (pid.matches("[0-9]{1,18}") && ProcessHandle.of(Long.parseLong(pid)).isEmpty()) {
                    Files.deleteIfExists(sibling);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + ring.getParent(), e);
        }
    }

    /** The ring's path (absolute). */
    public Path path() {
        return path;
    }

    public int slots() {
        return slots;
    }

    /**
     * Slot {@code n} for the loader, in the order it asks (the lowest free slot). The first call creates and maps
     * the file with {@link #slots()} slots of {@code length} bytes; later calls get a slot's first {@code length}
     * bytes, at most the first call's (the loader always asks for the same; the allocators' contract suite does not).
     * Alignments up to a {@link RingDescriptor#PAGE page}: slots start on pages of a page-aligned mapping.
     */
    @Override
    public synchronized NativeRegion allocate(long length, int alignment) {
        checkAllocation(length, alignment);
        if (closed) {
            throw new IllegalStateException("ring " + path + " is closed");
        }
        if (alignment > PAGE) {
            throw new IllegalArgumentException("ring slots are " + PAGE + "-byte aligned, not " + alignment);
        }
        if (buffer == null) {
            create(length);
        } else if (length > slotBytes) {
            throw new IllegalArgumentException("ring " + path + " has slots of " + slotBytes + " bytes; the loader "
                + "asked for " + length);
        }
        for (int s = 0; s < slots; s++) {
            if (!taken[s]) {
                taken[s] = true;
                return new Slot(this, s, BufferUtil.address(mapping) + slotOffset(slotsOffset, stride, s), length);
            }
        }
        throw new IllegalStateException("ring " + path + " has " + slots + " slots, all given to the loader: its "
            + "prefetch must equal the ring's slot count");
    }

    private void create(long length) {
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new IllegalStateException("ring " + path + ": the ring's fields are in the host's byte order, which "
                + "docs/RING.md requires to be little-endian; this host is " + ByteOrder.nativeOrder());
        }
        long fileLength = fileLength(slots, length);
        tempPath = path.resolveSibling(path.getFileName() + TEMP_INFIX + ProcessHandle.current().pid());
        // Before the file exists, and before the zero fill (seconds for a large ring): a kill at any moment from here
        // on leaves no file behind (a reaper started after the create left PATH.tmp-PID in 1 of 12 kills on CI).
        reaper = RingReaper.start(tempPath, path);
        try {
            // Owner-only: the ring holds training data, and only this user's client should attach (docs/RING.md).
            channel = FileChannel.open(tempPath, java.util.Set.of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rw-------")));
            if (reaper != null) {
                reaper.watch(tempPath);
            }
            // Write every page now: a full tmpfs fails here with an IOException, not later with SIGBUS in a worker.
            ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
            for (long at = 0; at < fileLength; at += zeros.capacity()) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), fileLength - at));
                while (zeros.hasRemaining()) {
                    channel.write(zeros, at + zeros.position());
                }
            }
            BufferUtil.free(zeros);
            mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, fileLength);
            fileKey = Files.readAttributes(tempPath, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            closeChannel();
            deleteQuietly(tempPath);
            if (reaper != null) {
                reaper.close(); // nothing left for it to remove
            }
            throw new UncheckedIOException("cannot create the ring " + tempPath + " (" + fileLength + " bytes): "
                + e.getMessage(), e);
        }
        buffer = new UnsafeBuffer(mapping);
        header.wrap(buffer, 0);
        serverBlock.wrap(buffer, 0);
        this.fileLength = fileLength;
        slotsOffset = slotsOffset(slots);
        stride = slotStride(length);
        slotBytes = length;
        header.magicAndVersion()
            .headerLength((int) slotsOffset)
            .fileLength(fileLength)
            .slotCount(slots)
            .slotsOffset(slotsOffset)
            .slotStride(stride)
            .serverPid(ProcessHandle.current().pid())
            .serverStartMillis(RingOwner.startMillis(ProcessHandle.current()));
        serverBlock.status(STATUS_STARTING);
    }

    /** The mapped file; valid until {@link #close()}. */
    public UnsafeBuffer buffer() {
        if (buffer == null) {
            throw new IllegalStateException("ring " + path + " has no file yet: the loader allocates it");
        }
        return buffer;
    }

    /** Which slot {@code address} (a loader batch's image address) starts; throws if it is none of the ring's. */
    public int slotOf(long address) {
        long offset = address - BufferUtil.address(mapping) - slotsOffset;
        if (offset < 0 || offset % stride != 0 || offset / stride >= slots) {
            throw new IllegalStateException("address 0x" + Long.toHexString(address) + " is not a slot of ring "
                + path + ": the loader's allocator must be the ring");
        }
        return (int) (offset / stride);
    }

    /** File offset of {@code address} inside the mapping. */
    public long offsetOf(long address) {
        return address - BufferUtil.address(mapping);
    }

    /** Writes the header's remaining fields, marks the ring ready and renames it to {@link #path()}. */
    public synchronized void publish(RingGeometry geometry) {
        UnsafeBuffer b = buffer();
        header.capacity(geometry.capacity())
            .height(geometry.crop())
            .width(geometry.crop())
            .channels(3)
            .flags(geometry.eval() ? FLAG_EVAL : 0)
            .batchesPerEpoch(geometry.batchesPerEpoch())
            .samplesPerEpoch(geometry.samplesPerEpoch())
            .records(geometry.records())
            .seed(geometry.seed())
            .rank(geometry.rank())
            .worldSize(geometry.worldSize())
            .classCount(geometry.classCount())
            .fields(geometry.fields().size(), RingFields.json(geometry.fields()))
            .pixels(geometry.pixels());
        checkHeader(b, b.capacity(), "ring " + tempPath); // what a client will check, checked once here
        b.getBytes(0, publishedHeader);
        published = true;
        // Plain stores are enough for the header (the rename publishes it); the release also orders STATUS after
        // the zero fill for a reader that opened the temporary name.
        serverBlock.statusRelease(STATUS_READY);
        try {
            Files.move(tempPath, path, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot rename the ring " + tempPath + " to " + path, e);
        }
    }

    /**
     * Writes {@code message} (truncated to the block) into the message block; publish a status or result after.
     * Skipped when the file lost its pages (see the class note).
     */
    public void message(String message) {
        if (!controlPagesInFile()) {
            return;
        }
        buffer(); // refuses before the loader allocated the file, as every other access does
        serverBlock.message(message.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /**
     * Marks the ring stopped (or failed), unlinks the path if it still names this file, and unmaps it once the
     * loader gave back every slot (a slot still out leaves the mapping in place: a leak, never a crash).
     */
    public synchronized void close(int status) {
        if (closed) {
            return;
        }
        closed = true;
        boolean truncated = truncated();
        if (buffer != null && controlPagesInFile()) {
            serverBlock.statusRelease(status);
        }
        deleteIfOurs(path);
        if (tempPath != null) {
            deleteIfOurs(tempPath);
        }
        if (reaper != null) {
            reaper.close();
        }
        if (mapping != null && liveRegions() == 0 && !truncated) {
            IoUtil.unmap(mapping);
            mapping = null;
        }
        closeChannel();
    }

    @Override
    public void close() {
        close(STATUS_STOPPED);
    }

    /** Another process can truncate or overwrite the file: the loader must write it through guarded copies only. */
    @Override
    public boolean sharedWithOtherProcesses() {
        return true;
    }

    /**
     * Why the ring can no longer be trusted, or null while it is intact: the file is shorter than this server made
     * it (truncated, or replaced through {@code O_TRUNC}), or its header, read-only once published, changed. Reads
     * the file through the channel, never the mapping; allocation-free while the ring is intact.
     */
    @Override
    public synchronized RuntimeException damaged() {
        if (channel == null) {
            return null;
        }
        long length = currentLength();
        if (length < fileLength) {
            return new RingFormatException("ring file " + path + " truncated or replaced by another process: "
                + Math.max(length, 0) + " of its " + fileLength + " bytes are left");
        }
        if (published) {
            try {
                headerInFile.clear();
                while (headerInFile.hasRemaining() && channel.read(headerInFile, headerInFile.position()) > 0) {
                    // read the whole header
                }
            } catch (IOException e) {
                return new RingFormatException("ring file " + path + " cannot be read back: " + e.getMessage());
            }
            for (int i = 0; i < HEADER_END; i++) {
                if (headerInFile.get(i) != publishedHeader[i]) {
                    return new RingFormatException("ring file " + path + " overwritten by another process: its "
                        + "header changed at byte " + i + " (the server writes it once, before it publishes)");
                }
            }
        }
        return null;
    }

    /** The error for a guarded access of the ring that faulted: {@link #damaged()}'s, or one naming the ring anyway. */
    public RuntimeException faulted(Throwable fault) {
        RuntimeException damage = damaged();
        return damage != null ? damage : new RingFormatException("ring file " + path + " truncated or replaced by "
            + "another process: an access to its mapping faulted (" + fault.getMessage() + ")");
    }

    /** Whether the file lost pages of the mapping (reads the length through the channel). */
    synchronized boolean truncated() {
        return channel != null && currentLength() < fileLength;
    }

    /** Whether the header, server, message, client and slot-header pages are still in the file: safe to write. */
    synchronized boolean controlPagesInFile() {
        return channel != null && currentLength() >= slotsOffset;
    }

    private long currentLength() {
        try {
            return channel.size();
        } catch (IOException e) {
            return -1;
        }
    }

    private void deleteIfOurs(Path file) {
        try {
            Object key = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
            if (fileKey != null && fileKey.equals(key)) {
                Files.deleteIfExists(file);
            }
        } catch (NoSuchFileException e) {
            // already gone (a client unlinked it after seeing the server die)
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove the ring " + file, e);
        }
    }

    private void closeChannel() {
        // Quietly: nothing was written through the channel after the mapping.
        CloseHelper.quietClose(channel);
        channel = null;
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // the creation error is the one to report
        }
    }

    private synchronized void free(int slot) {
        taken[slot] = false;
    }

    /** What the header says about the batches, known once the loader is built. */
    public record RingGeometry(int capacity, int crop, boolean eval, long batchesPerEpoch, long samplesPerEpoch,
                               long records, long seed, int rank, int worldSize, int classCount,
                               java.util.List<RingFields.Entry> fields,
                               io.pinshard.loader.options.PixelFormat pixels) {
    }

    private static final class Slot extends OwnedRegion {
        private final RingFile ring;
        private final int slot;

        Slot(RingFile ring, int slot, long address, long length) {
            super(ring, address, length, false);
            this.ring = ring;
            this.slot = slot;
        }

        @Override
        protected void release() {
            ring.free(slot); // the memory is the file's: it goes when the ring closes
        }

        @Override
        public String toString() {
            return "slot " + slot + " of " + super.toString() + " in " + ring.path;
        }
    }

    /** The server recorded in an existing ring's header, to tell a crashed run's ring from a live one. */
    record RingOwner(long pid, long startMillis, int status) {
        /** The owner of the ring at {@code file}, or null when the file is not a ring. */
        static RingOwner read(Path file) {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                return null; // a FIFO would block the open, a device be read: neither is a ring
            }
            ByteBuffer header = ByteBuffer.allocate(HEADER_END + BLOCK_LENGTH);
            try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
                while (header.hasRemaining() && in.read(header) > 0) {
                    // read what there is
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file, e);
            }
            UnsafeBuffer bytes = new UnsafeBuffer(header.array());
            RingHeader ring = new RingHeader().wrap(bytes, 0);
            if (header.position() < header.capacity() || !ring.hasMagic()) {
                return null;
            }
            return new RingOwner(ring.serverPid(), ring.serverStartMillis(),
                new RingServerBlock().wrap(bytes, 0).status());
        }

        /** Whether the recorded server still runs: same pid, same start time (pids are reused). */
        boolean alive() {
            if (status == STATUS_STOPPED || status == STATUS_FAILED) {
                return false;
            }
            Optional<ProcessHandle> handle = ProcessHandle.of(pid);
            return handle.isPresent() && handle.get().isAlive()
                && Math.abs(startMillis(handle.get()) - startMillis) < 2_000;
        }

        static long startMillis(ProcessHandle process) {
            return process.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L);
        }
    }
}
