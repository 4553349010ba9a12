package io.pinshard.cli;

import io.pinshard.s3.S3Location;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Where {@code convert --output s3://...} writes before it pushes, unless {@code --staging} says. */
final class StagingDirectory {
    private StagingDirectory() {
    }

    /**
     * {@code java.io.tmpdir/pinshard-staging/<bucket>+<prefix with / as +>}, other characters than letters, digits,
     * '.', '-' and '_' as '_': the same destination gives the same folder, so a rerun resumes.
     */
    static Path of(S3Location remote) {
        String name = (remote.bucket() + "+" + remote.prefix().replace('/', '+')).replaceAll("[^A-Za-z0-9._+-]", "_");
        return Path.of(System.getProperty("java.io.tmpdir"), "pinshard-staging", name);
    }

    /**
     * Holds the default staging directory {@code staging} for this process until closed: two converts to one
     * destination share that directory by design (a rerun resumes), so a second one running at the same time would
     * rename and delete the first one's files under it. The lock is an OS file lock on {@code <staging>.lock} beside
     * it (in {@code pinshard-staging}, ours), released when the process ends however it ends; the file stays.
     *
     * @throws IllegalStateException naming the destination when another process holds it
     */
    static java.io.Closeable hold(Path staging, String destination) throws IOException {
        Files.createDirectories(staging.getParent());
        Path lockFile = staging.resolveSibling(staging.getFileName() + ".lock");
        FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (java.nio.channels.OverlappingFileLockException e) {
            lock = null; // this JVM holds it already (another convert command in the same process)
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        if (lock == null) {
            channel.close();
            throw new IllegalStateException("another pinshard convert is writing " + destination + " through "
                + staging + " (it holds " + lockFile + "): wait for it to finish, or give this one --staging DIR");
        }
        return channel::close; // closing the channel releases the lock
    }

    /** Deletes the staging directory and everything in it. */
    static void delete(Path directory) throws IOException {
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(directory)) {
            paths = walk.sorted(Comparator.reverseOrder()).toList();
        }
        for (Path path : paths) {
            Files.deleteIfExists(path);
        }
    }
}
