package io.pinshard.serve;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Removes the rings of servers that are provably gone from a directory (by default {@code /dev/shm}): every
 * {@code pinshard} start does, and {@code pinshard.serve()} in Python. A ring is stale when its header's server
 * (pid and start time: pids are reused) no longer runs, or the header says it stopped or failed; a temporary ring
 * ({@code NAME.tmp-PID}) when that pid no longer runs. Only regular files of this user are looked at, and nothing
 * is opened before that is known (a FIFO or another user's file named like a ring is neither read nor removed).
 * Most killed servers' rings are removed by their {@link RingReaper} at once; this sweep is for the rest (the
 * reaper killed with its server, a machine without {@code /bin/sh}).
 */
public final class StaleRings {
    /** Where rings of earlier versions lived, and where an explicit {@code --ring /dev/shm/NAME} puts one. */
    public static final Path SHARED_MEMORY = Path.of("/dev/shm");

    private StaleRings() {
    }

    /** Sweeps this user's ring directory ({@link RingDirectory#current()}, not created) and {@code /dev/shm}. */
    public static List<Path> sweepDefaults() {
        List<Path> removed = sweep(RingDirectory.current());
        removed.addAll(sweep(SHARED_MEMORY));
        return removed;
    }

    /** Removes the stale rings in {@code directory} and returns what it removed; a missing directory has none. */
    public static List<Path> sweep(Path directory) {
        List<Path> removed = new ArrayList<>();
        if (!Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)) {
            return removed;
        }
        long me = RingDirectory.ownUid();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory, "pinshard-*.ring*")) {
            for (Path entry : entries) {
                try {
                    if (isOwnRegularFile(entry, me) && isStale(entry)) {
                        Files.deleteIfExists(entry);
                        removed.add(entry);
                    }
                } catch (IOException | RuntimeException e) {
                    // gone meanwhile, or unreadable: not ours to judge
                }
            }
        } catch (IOException e) {
            // an unreadable directory has nothing of ours to remove
        }
        return removed;
    }

    private static boolean isStale(Path entry) {
        String name = entry.getFileName().toString();
        int temporary = name.lastIndexOf(".ring.tmp-");
        if (temporary >= 0) {
            String pid = name.substring(temporary + ".ring.tmp-".length());
            return pid.matches("[0-9]{1,18}") && ProcessHandle.of(Long.parseLong(pid)).isEmpty();
        }
        if (!name.endsWith(".ring")) {
            return false;
        }
        RingFile.RingOwner owner = RingFile.RingOwner.read(entry);
        return owner != null && !owner.alive();
    }

    /** Whether {@code path} itself (not a link's target) is a regular file owned by uid {@code uid}. */
    static boolean isOwnRegularFile(Path path, long uid) {
        RingDirectory.Attributes attributes = RingDirectory.Attributes.read(path);
        return attributes != null && attributes.isRegularFileOf(uid);
    }
}
