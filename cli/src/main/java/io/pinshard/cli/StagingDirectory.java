package io.pinshard.cli;

import io.pinshard.s3.S3Location;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Where {@code convert --output s3://...} writes before it pushes, unless {@code --staging} says. Two converts to one
 * destination share it by design (a rerun resumes); the dataset's {@link io.pinshard.format.DatasetWriteLock}, held
 * by convert through the push and this deletion, keeps a second one out while the first runs.
 */
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
