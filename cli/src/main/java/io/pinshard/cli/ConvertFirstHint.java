package io.pinshard.cli;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Printable;
import io.pinshard.format.ShardFormatException;
import io.pinshard.writer.convert.FolderLister;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The next step for the commonest first mistake: a command that reads a dataset given the image folder itself
 * ({@code pinshard bench ~/photos}). When the folder that is no dataset holds images, say to convert it.
 */
final class ConvertFirstHint {
    /** Entries looked at, at most: a hint is not worth a walk over a huge tree. */
    private static final int MAX_ENTRIES = 10_000;

    private ConvertFirstHint() {
    }

    /** {@code "; it holds images: ..."} for a not-a-dataset error on a local folder of images, else "". */
    static String of(ShardFormatException e) {
        if (e.kind() != ShardFormatException.Kind.NOT_A_DATASET || e.dataset() == null
            || e.dataset().contains("://")) {
            return "";
        }
        Path folder = Path.of(e.dataset());
        if (!Files.isDirectory(folder) || Files.exists(folder.resolve(DatasetManifest.FILE_NAME))) {
            return "";
        }
        try (Stream<Path> files = Files.walk(folder, 2)) {
            boolean images = files.limit(MAX_ENTRIES).filter(Files::isRegularFile)
                .anyMatch(file -> !FolderLister.ignored(folder.relativize(file).toString().replace('\\', '/')));
            return images ? "; it holds images: convert them into a dataset first, e.g. pinshard convert "
                + Printable.escape(e.dataset()) + " -o DATASET_DIR, then give DATASET_DIR" : "";
        } catch (IOException | RuntimeException unreadable) {
            return ""; // the error itself already says what is wrong
        }
    }
}
