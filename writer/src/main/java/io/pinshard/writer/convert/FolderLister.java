package io.pinshard.writer.convert;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Lists an image folder tree. With labels, the first-level folder names are the classes, sorted by
 * name and numbered from 0 (the torchvision ImageFolder convention); an image directly in the root
 * is rejected ("not inside a class folder"). Without labels every image anywhere is unlabeled.
 * Inputs are ordered by class, then by relative path; hidden entries and files whose extension is
 * not an image extension are skipped and counted as ignored.
 */
public final class FolderLister {
    private FolderLister() {
    }

    public static InputListing list(Path root, boolean labelled) throws IOException {
        if (!Files.isDirectory(root)) {
            throw new IOException(root + " is not a directory");
        }
        List<String> classes = new ArrayList<>();
        if (labelled) {
            try (Stream<Path> children = Files.list(root)) {
                children.filter(Files::isDirectory).map(p -> p.getFileName().toString())
                    .filter(name -> !name.startsWith(".")).sorted().forEach(classes::add);
            }
        }
        List<String> relative = new ArrayList<>();
        long[] ignored = {0};
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(p -> !p.equals(root)).forEach(p -> {
                String rel = root.relativize(p).toString().replace('\\', '/');
                boolean hidden = false;
                for (String part : rel.split("/")) {
                    hidden |= part.startsWith(".");
                }
                if (Files.isDirectory(p)) {
                    return;
                }
                if (hidden || !ImageExtensions.isImage(rel) || !Files.isRegularFile(p)) {
                    ignored[0]++;
                    return;
                }
                relative.add(rel);
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        List<InputItem> items = new ArrayList<>(relative.size());
        for (String rel : relative) {
            int slash = rel.indexOf('/');
            if (!labelled) {
                items.add(InputItem.file(rel, -1, root.resolve(rel)));
            } else if (slash < 0) {
                items.add(InputItem.unusable(rel, "not inside a class folder (labels come from first-level folder names;"
                    + " use --labels none for unlabeled trees)"));
            } else {
                int label = classes.indexOf(rel.substring(0, slash));
                items.add(InputItem.file(rel, label, root.resolve(rel)));
            }
        }
        // Class order first (a label of -1 for root-level files sorts them first), then path order.
        items.sort(Comparator.comparingInt(InputItem::label).thenComparing(InputItem::key));
        return new InputListing(root.toString(), classes, items, ignored[0]);
    }
}
