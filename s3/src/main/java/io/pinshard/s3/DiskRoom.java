package io.pinshard.s3;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What a failed write to a local file adds to its message when the file system has too little room left. */
final class DiskRoom {
    private DiskRoom() {
    }

    /**
     * "; the file system holding it has N bytes free, the object needs M: ..." when the file system holding {@code
     * folder} has less than {@code needed} bytes usable now (a full disk), else the empty string (no figure to add).
     */
    static String note(Path folder, long needed) {
        try {
            long usable = Files.getFileStore(folder).getUsableSpace();
            if (usable < needed) {
                return "; the file system holding it has " + usable + " bytes free, the object needs " + needed
                    + ": free space there, or choose a folder on a larger disk";
            }
        } catch (IOException | RuntimeException unknown) {
            // no figure to add
        }
        return "";
    }
}
