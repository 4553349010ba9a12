package io.pinshard.reader;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import java.nio.file.Files;
import java.nio.file.Path;

/** The first check on a dataset path: a directory, or an error saying what the path is instead. */
final class DatasetDirectory {
    private static final String WHAT = "a dataset is the directory holding manifest.json that `pinshard convert"
        + " IMAGES -o DIR` writes";

    private DatasetDirectory() {
    }

    /** Throws {@link Kind#NOT_A_DATASET} unless {@code directory} is a directory. */
    static void check(Path directory) {
        if (Files.isDirectory(directory)) {
            return;
        }
        String detail;
        if (!Files.exists(directory)) {
            detail = "does not exist (" + WHAT + ")";
        } else if (isDatasetFile(directory)) {
            // A shard or manifest given where its dataset was meant: name the folder the user likely wanted.
            Path parent = directory.toAbsolutePath().getParent();
            detail = "is a dataset's " + (directory.getFileName().toString().endsWith(".pinshard") ? "shard" : "manifest")
                + " file, not a dataset directory: give its dataset's directory"
                + (parent == null ? "" : " (" + parent + ")") + " instead";
        } else {
            detail = "is a file, not a dataset directory (" + WHAT + ")";
        }
        throw new ShardFormatException(Kind.NOT_A_DATASET, directory.toString(), null, -1, detail, null);
    }

    private static boolean isDatasetFile(Path file) {
        String name = file.getFileName() == null ? "" : file.getFileName().toString();
        return name.endsWith(".pinshard") || name.equals(DatasetManifest.FILE_NAME);
    }
}
