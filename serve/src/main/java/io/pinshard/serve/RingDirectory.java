package io.pinshard.serve;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

/**
 * Where rings live, and what a ring path must be before anyone opens it (docs/RING.md, §9 "Security model").
 *
 * <p>A shared, sticky, world-writable folder such as {@code /dev/shm} lets any user create any name in it: a FIFO
 * named like a ring hangs whoever opens it, another user's server at a well-known name receives the victim's client.
 * So rings live in a directory only their user can create names in: {@code $XDG_RUNTIME_DIR/pinshard} when
 * {@code XDG_RUNTIME_DIR} is set and is a directory of this user with mode 0700, else
 * {@code /dev/shm/pinshard-UID}, created 0700. The directory is checked with {@code lstat} (a link is refused, not
 * followed) for owner and mode on every use, because another user may have created it first.
 *
 * <p>A bare ring name ({@code --ring train.ring}, no {@code /}) and the default ring go there. A ring path given
 * with a folder may lie anywhere; a file already at it must be a regular file (not followed if a link) of this
 * user with mode 0600, or it is refused, naming the path, its owner and its mode.
 */
public final class RingDirectory {
    /** The owner-only mode of the ring directory. */
    public static final int DIRECTORY_MODE = 0700;
    /** The owner-only mode of a ring file. */
    public static final int FILE_MODE = 0600;
    private static final int TYPE_MASK = 0170000;
    private static final int TYPE_DIRECTORY = 0040000;
    private static final int TYPE_REGULAR = 0100000;
    private static final Path SHARED_MEMORY = Path.of("/dev/shm");

    private RingDirectory() {
    }

    /** The ring directory for this process's environment; not created (see {@link #ensure}). */
    public static Path of(Map<String, String> environment) {
        String runtime = environment.get("XDG_RUNTIME_DIR");
        long uid = ownUid();
        if (runtime != null && !runtime.isEmpty() && runtime.startsWith("/")) {
            Path runtimeDir = Path.of(runtime);
            Attributes attributes = Attributes.read(runtimeDir);
            if (attributes != null && attributes.isPrivateDirectoryOf(uid)) {
                return runtimeDir.resolve("pinshard");
            }
        }
        Path base = Files.isDirectory(SHARED_MEMORY) ? SHARED_MEMORY : Path.of(System.getProperty("java.io.tmpdir"));
        return base.resolve("pinshard-" + uid);
    }

    /** {@link #of} for this process's environment. */
    public static Path current() {
        return of(System.getenv());
    }

    /**
     * Creates {@code directory} mode 0700 if it is missing, then checks it is a directory (not a link) of this user
     * with mode 0700; returns it.
     *
     * @throws IllegalStateException naming the path, its owner and its mode, when it is anything else
     */
    public static Path ensure(Path directory) {
        try {
            Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        } catch (FileAlreadyExistsException e) {
            // checked below, whoever made it
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the ring directory " + directory + ": " + e.getMessage(), e);
        }
        Attributes attributes = Attributes.read(directory);
        long uid = ownUid();
        if (attributes == null || !attributes.isPrivateDirectoryOf(uid)) {
            throw new IllegalStateException("ring directory " + directory + " is "
                + (attributes == null ? "gone" : attributes.describe()) + ", not a directory of uid " + uid
                + " with mode 0700: another user may have made it; refusing to put rings there (remove it, or set "
                + "XDG_RUNTIME_DIR to a directory of yours with mode 0700)");
        }
        return directory;
    }

    /**
     * The ring path for {@code --ring VALUE}: null is the default ({@code pinshard-PID.ring}), a bare name lies in
     * the checked ring directory, anything with a {@code /} is taken as given (absolute); an empty value is refused.
     */
    public static Path resolve(String ring, long pid) {
        if (ring == null) {
            return ensure(current()).resolve("pinshard-" + pid + ".ring");
        }
        if (ring.isEmpty()) {
            throw new IllegalArgumentException("--ring is empty: give a NAME (in the ring directory) or a PATH, or leave"
                + " --ring out for pinshard-" + pid + ".ring");
        }
        if (ring.indexOf('/') < 0) {
            if (ring.equals(".") || ring.equals("..")) {
                throw new IllegalArgumentException("--ring " + ring + " is not a file name");
            }
            return ensure(current()).resolve(ring);
        }
        return Path.of(ring).toAbsolutePath();
    }

    /**
     * Checks what is at {@code path} before it is opened: nothing, or a regular file (a link is not followed) of
     * this user with mode 0600. Returns whether a file is there.
     *
     * @throws IllegalStateException naming the path, its owner and its mode, for anything else
     */
    public static boolean checkOwnRingFile(Path path) {
        Attributes attributes = Attributes.read(path);
        if (attributes == null) {
            return false;
        }
        long uid = ownUid();
        if (!attributes.isRegularFile() || attributes.uid() != uid || attributes.permissions() != FILE_MODE) {
            throw new IllegalStateException("ring " + path + " is " + attributes.describe() + ", not a regular file "
                + "of uid " + uid + " with mode 0600: refusing to open it (another user's file, or not a ring)");
        }
        return true;
    }

    /** This process's uid (the owner of its own /proc entry), -1 when unknown. */
    public static long ownUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | RuntimeException e) {
            return -1; // no /proc: nothing is this user's, every check refuses
        }
    }

    /** What {@code lstat} says about a path. */
    record Attributes(int mode, long uid) {
        /** The path's own attributes (a link is not followed), or null when nothing is there. */
        static Attributes read(Path path) {
            try {
                Map<String, Object> unix = Files.readAttributes(path, "unix:mode,uid", LinkOption.NOFOLLOW_LINKS);
                return new Attributes((Integer) unix.get("mode"), (Integer) unix.get("uid"));
            } catch (NoSuchFileException e) {
                return null;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot lstat " + path + ": " + e.getMessage(), e);
            }
        }

        boolean isDirectory() {
            return (mode & TYPE_MASK) == TYPE_DIRECTORY;
        }

        boolean isRegularFile() {
            return (mode & TYPE_MASK) == TYPE_REGULAR;
        }

        /** A directory of uid {@code owner} with mode 0700: no one else can create names in it. */
        boolean isPrivateDirectoryOf(long owner) {
            return isDirectory() && uid == owner && permissions() == DIRECTORY_MODE;
        }

        /** A regular file of uid {@code owner}. */
        boolean isRegularFileOf(long owner) {
            return isRegularFile() && uid == owner;
        }

        int permissions() {
            return mode & 07777;
        }

        String describe() {
            String type = switch (mode & TYPE_MASK) {
                case TYPE_DIRECTORY -> "a directory";
                case TYPE_REGULAR -> "a regular file";
                case 0010000 -> "a FIFO";
                case 0120000 -> "a symbolic link";
                case 0140000 -> "a socket";
                case 0020000 -> "a character device";
                case 0060000 -> "a block device";
                default -> "a file of type 0" + Integer.toOctalString(mode & TYPE_MASK);
            };
            return type + " owned by uid " + uid + " with mode 0" + Integer.toOctalString(permissions());
        }
    }
}
