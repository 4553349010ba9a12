package io.pinshard.s3;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What a failed write to a local file adds to its message when the file system has too little room left. */
final class DiskRoom {
    private DiskRoom() {
    }

    /**
     * "; the file system holding it has N bytes free, the object needs M: ..." when the write failed for want of room
     * ({@code cause} says "No space left on device") or the file system holding {@code folder} has less than
     * {@code needed} bytes usable now, else the empty string (no figure to add). A failed write's part is deleted
     * before the message is made and other writes come and go, so the room now may exceed what the object needs:
     * the note then says that the disk was full when it failed. The room is asked of {@code folder}'s nearest
     * existing ancestor: a folder that could not be made on a full disk is not there to ask.
     */
    static String note(Path folder, long needed, IOException cause) {
        boolean noSpace = String.valueOf(cause.getMessage()).contains("No space left on device");
        try {
            Path existing = folder.toAbsolutePath();
            while (existing.getParent() != null && !Files.isDirectory(existing)) {
                existing = existing.getParent();
            }
            long usable = Files.getFileStore(existing).getUsableSpace();
            if (usable < needed || noSpace) {
                return "; the file system holding it has " + usable + " bytes free, the object needs " + needed
                    + (usable < needed ? "" : " (it was full when the write failed: other writes held the rest)")
                    + ": free space there, or choose a folder on a larger disk";
            }
        } catch (IOException | RuntimeException unknown) {
            // no figure to add
        }
        return "";
    }
}
