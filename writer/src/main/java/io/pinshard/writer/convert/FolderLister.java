package io.pinshard.writer.convert;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.stream.Stream;

/**
 * Lists an image folder tree. With labels, the first-level folder names are the classes, sorted by
 * name and numbered from 0 (the torchvision ImageFolder convention); an image directly in the root
 * is rejected ("not inside a class folder"). Without labels every image anywhere is unlabeled.
 * Inputs are ordered by class, then by relative path; hidden entries and files whose extension is
 * not an image extension are skipped and counted as ignored.
 *
 * <p>Nothing is lost silently: symbolic links to folders and files are followed (as torchvision's
 * ImageFolder does), a link that loops back to a folder above it and a folder that cannot be read
 * each become one rejected input (its path, with the reason), and a dangling link with an image
 * extension is rejected too. Keys are relative paths with {@code /} between folders, whatever the
 * platform, and keep every other character of the file name (a {@code \} included).
 */
public final class FolderLister {
    /** The reason an image directly in the root of a labelled tree is rejected. */
    public static final String NOT_IN_CLASS_FOLDER = "not inside a class folder (labels come from first-level folder names;"
        + " use --labels none for unlabeled trees)";

    private FolderLister() {
    }

    /** Whether a file at {@code relativePath} ('/' between names) is skipped as this lister skips it: hidden or not an image. */
    public static boolean ignored(String relativePath) {
        return isHidden(relativePath) || !ImageExtensions.isImage(relativePath);
    }

    /** Whether a folder of this name is a class folder (its first-level folder names are the classes). */
    public static boolean isClassFolder(String name) {
        return !name.startsWith(".");
    }

    public static InputListing list(Path root, boolean labelled) throws IOException {
        if (!Files.isDirectory(root)) {
            throw new IOException(root + " is not a directory");
        }
        List<String> classes = new ArrayList<>();
        if (labelled) {
            try (Stream<Path> children = Files.list(root)) {
                children.filter(Files::isDirectory).map(p -> p.getFileName().toString())
                    .filter(FolderLister::isClassFolder).sorted().forEach(classes::add);
            } catch (AccessDeniedException e) {
                throw new IOException("cannot list the input folder " + root + ": permission denied", e);
            }
        }
        List<Found> found = new ArrayList<>();
        long[] ignored = {0};
        Files.walkFileTree(root, EnumSet.of(FileVisitOption.FOLLOW_LINKS), Integer.MAX_VALUE, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                String rel = key(root, file);
                if (ignored(rel)) {
                    ignored[0]++;
                } else if (attrs.isSymbolicLink()) {
                    found.add(new Found(rel, null, "cannot read: dangling symbolic link (its target does not exist)"));
                } else if (!attrs.isRegularFile()) {
                    found.add(new Found(rel, null, "not a regular file (a device, FIFO or socket)"));
                } else {
                    found.add(new Found(rel, file, null));
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (file.equals(root)) {
                    throw new IOException("cannot list the input folder " + root + ": " + reason(e), e);
                }
                String rel = key(root, file);
                if (!isHidden(rel)) {
                    found.add(new Found(rel + "/", null, e instanceof FileSystemLoopException
                        ? "symbolic link loop: this folder links back to a folder above it, not followed"
                        : "cannot list this folder (" + reason(e) + "); the images in it, if any, are not converted"));
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) {
                if (e != null) {
                    found.add(new Found(key(root, dir) + "/", null, "listing this folder failed part-way (" + reason(e)
                        + "); the images in it, if any, are not converted"));
                }
                return FileVisitResult.CONTINUE;
            }
        });
        List<InputItem> items = new ArrayList<>(found.size());
        for (Found f : found) {
            int slash = f.key.indexOf('/');
            if (f.problem != null) {
                items.add(new InputItem(f.key, slash < 0 || !labelled ? -1 : classes.indexOf(f.key.substring(0, slash)),
                    null, 0, 0, f.problem));
            } else if (!labelled) {
                items.add(InputItem.file(f.key, -1, f.file));
            } else if (slash < 0) {
                items.add(InputItem.unusable(f.key, NOT_IN_CLASS_FOLDER));
            } else {
                items.add(InputItem.file(f.key, classes.indexOf(f.key.substring(0, slash)), f.file));
            }
        }
        // Class order first (a label of -1 for root-level files sorts them first), then path order.
        items.sort(Comparator.comparingInt(InputItem::label).thenComparing(InputItem::key));
        return new InputListing(root.toString(), classes, items, ignored[0]);
    }

    private record Found(String key, Path file, String problem) {
    }

    /** The path below {@code root}, its names joined with '/' (a '\' inside a Unix file name stays a character). */
    private static String key(Path root, Path file) {
        StringBuilder key = new StringBuilder();
        for (Path name : root.relativize(file)) {
            if (!key.isEmpty()) {
                key.append('/');
            }
            key.append(name);
        }
        return key.toString();
    }

    private static boolean isHidden(String rel) {
        for (String part : rel.split("/")) {
            if (part.startsWith(".")) {
                return true;
            }
        }
        return false;
    }

    private static String reason(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NoSuchFileException) {
            return "it no longer exists";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
