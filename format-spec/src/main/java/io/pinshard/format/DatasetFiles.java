package io.pinshard.format;

import io.pinshard.format.ShardFormatException.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The file-system rules for a dataset's files (SPEC.md section 14, "Files"), checked before any file
 * is opened, so that a FIFO, a device or a link out of the directory is refused instead of read:
 *
 * <ul>
 *   <li>{@code manifest.json} and every listed shard must be <b>regular files</b>, told from the file's
 *       attributes without opening it (opening a FIFO blocks; {@code /dev/zero} never ends);</li>
 *   <li>a <b>symbolic link</b> is followed only when its target lies inside the dataset directory,
 *       unless {@link #ALLOW_LINKS_OUTSIDE_PROPERTY} (or {@code verify --allow-links-outside}) allows
 *       targets elsewhere;</li>
 *   <li>no file may be <b>listed twice</b> under two names (hard or symbolic links to one file): file
 *       identity is compared, not names;</li>
 *   <li>each file's length equals its manifest entry; once mapped, the header's shard number equals
 *       {@link ManifestRules#expectedShardNumbers its place in the manifest} (that every label names a class
 *       the reader checks in its walk over the index, {@link IndexEntryVisitor}).</li>
 * </ul>
 *
 * One instance checks one dataset, position by position ({@link #checkShard} before mapping shard
 * {@code i}, {@link #checkOpened} after).
 */
public final class DatasetFiles {
    /** System property that, set to {@code true}, lets links point out of the dataset directory. */
    public static final String ALLOW_LINKS_OUTSIDE_PROPERTY = "pinshard.allowLinksOutside";

    private final Path directory;
    private final String name;
    private final DatasetManifest manifest;
    private final boolean allowLinksOutside;
    private final int[] expectedNumbers;
    private final Map<Object, String> seen = new HashMap<>();
    private Path realDirectory;

    private DatasetFiles(Path directory, DatasetManifest manifest, boolean allowLinksOutside) {
        this.directory = directory;
        this.name = directory.toString();
        this.manifest = manifest;
        this.allowLinksOutside = allowLinksOutside;
        this.expectedNumbers = ManifestRules.expectedShardNumbers(manifest.shards());
    }

    /** The checks for {@code manifest}'s shards, links out of the directory as the system property says. */
    public static DatasetFiles of(Path directory, DatasetManifest manifest) {
        return new DatasetFiles(directory, manifest, allowLinksOutsideByDefault());
    }

    public static DatasetFiles of(Path directory, DatasetManifest manifest, boolean allowLinksOutside) {
        return new DatasetFiles(directory, manifest, allowLinksOutside);
    }

    /** Whether {@link #ALLOW_LINKS_OUTSIDE_PROPERTY} is {@code true}. */
    public static boolean allowLinksOutsideByDefault() {
        return Boolean.getBoolean(ALLOW_LINKS_OUTSIDE_PROPERTY);
    }

    /**
     * Checks listed shard {@code position} before it is opened: a regular file (through an allowed
     * link), not a file already listed under another name, of the length the manifest gives.
     *
     * @return the path to open, as listed
     */
    public Path checkShard(int position) {
        DatasetManifest.ShardEntry entry = manifest.shards().get(position);
        ManifestRules.checkShardSize(name, entry, checkShardFile(position));
        return directory.resolve(entry.file());
    }

    /**
     * The file checks of {@link #checkShard} without the length rule, for a verifier that reports a
     * wrong length and goes on.
     *
     * @return the file's length
     */
    public long checkShardFile(int position) {
        DatasetManifest.ShardEntry entry = manifest.shards().get(position);
        Path file = directory.resolve(entry.file());
        BasicFileAttributes attributes = regularFile(directory, file, entry.file(), allowLinksOutside, this);
        Object identity = attributes.fileKey() != null ? attributes.fileKey() : realPath(file, name, entry.file());
        String earlier = seen.putIfAbsent(identity, entry.file());
        if (earlier != null) {
            throw new ShardFormatException(Kind.BAD_MANIFEST, name, entry.file(), -1, "is the same file as "
                + earlier + " (a hard or symbolic link): every record would be served twice", null);
        }
        return attributes.size();
    }

    /** The header shard number listed shard {@code position} must carry. */
    public int expectedShardNumber(int position) {
        return expectedNumbers[position];
    }

    /**
     * Checks listed shard {@code position} once mapped and structurally valid: its header shard number. (Labels
     * against the class list are checked by the reader in its one walk over the index.)
     */
    public void checkOpened(int position, ShardStructure structure) {
        String shard = manifest.shards().get(position).file();
        ManifestRules.checkShardNumber(name, shard, expectedNumbers[position], structure.shardNumber());
    }

    /**
     * Checks {@code manifest.json} in {@code directory} before it is read.
     *
     * @throws ShardFormatException {@link Kind#NOT_A_DATASET} when there is none, {@link Kind#UNSAFE_FILE}
     *                              when it is not a regular file or links out of the directory
     */
    public static Path checkManifest(Path directory, boolean allowLinksOutside) {
        Path file = directory.resolve(DatasetManifest.FILE_NAME);
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new ShardFormatException(Kind.NOT_A_DATASET, directory.toString(), null, -1, "no "
                + DatasetManifest.FILE_NAME + " in " + directory + ": not a pinshard dataset (or its writer did not finish)",
                null);
        }
        regularFile(directory, file, DatasetManifest.FILE_NAME, allowLinksOutside, null);
        return file;
    }

    /**
     * Checks that {@code file} is a regular file, or a symbolic link to one, without opening it; for a
     * single shard given on its own (no dataset directory, so no link rule).
     */
    public static long checkRegularFile(Path file) {
        return regularFile(null, file, String.valueOf(file.getFileName()), true, null).size();
    }

    private static BasicFileAttributes regularFile(Path directory, Path file, String shown, boolean allowLinksOutside,
                                                   DatasetFiles owner) {
        String dataset = directory == null ? null : directory.toString();
        BasicFileAttributes link;
        try {
            link = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw new ShardFormatException(Kind.MANIFEST_MISMATCH, dataset, shown, -1, "listed in the manifest but missing", e);
        } catch (IOException | InvalidPathException | SecurityException e) {
            throw new ShardFormatException(Kind.IO_ERROR, dataset, shown, -1, "cannot read: " + e, e);
        }
        BasicFileAttributes target = link;
        if (link.isSymbolicLink()) {
            Path real = realPath(file, dataset, shown);
            if (!allowLinksOutside) {
                Path inside = owner != null ? owner.realDirectory() : realPath(directory, dataset, null);
                if (!real.startsWith(inside)) {
                    throw new ShardFormatException(Kind.UNSAFE_FILE, dataset, shown, -1, "is a symbolic link to " + real
                        + ", outside the dataset directory (set -D" + ALLOW_LINKS_OUTSIDE_PROPERTY
                        + "=true, or verify --allow-links-outside, to follow it)", null);
                }
            }
            try {
                target = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (IOException e) {
                throw new ShardFormatException(Kind.IO_ERROR, dataset, shown, -1, "cannot read: " + e, e);
            }
        }
        if (!target.isRegularFile()) {
            String what = target.isDirectory() ? "a directory" : target.isOther() ? "a FIFO, socket or device" : "not a file";
            throw new ShardFormatException(Kind.UNSAFE_FILE, dataset, shown, -1, "is " + what
                + ", not a regular file: refused before reading it", null);
        }
        return target;
    }

    private Path realDirectory() {
        if (realDirectory == null) {
            realDirectory = realPath(directory, name, null);
        }
        return realDirectory;
    }

    private static Path realPath(Path file, String dataset, String shown) {
        try {
            return file.toRealPath();
        } catch (NoSuchFileException e) {
            throw new ShardFormatException(Kind.MANIFEST_MISMATCH, dataset, shown, -1, "is a link to a missing file", e);
        } catch (IOException | SecurityException e) {
            throw new ShardFormatException(Kind.IO_ERROR, dataset, shown, -1, "cannot resolve: " + e, e);
        }
    }
}
