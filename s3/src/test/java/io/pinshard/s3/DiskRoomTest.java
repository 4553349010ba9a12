package io.pinshard.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiskRoomTest {
    @TempDir
    Path temp;

    @Test
    void aFullDiskIsNamedWithItsRoomEvenWhereTheFolderCouldNotBeMade() {
        // On a full disk the cache's folder for a dataset may fail to be made: its room is its parent's.
        String note = DiskRoom.note(temp.resolve("not/made/yet"), 1234, new IOException("No space left on device"));
        assertTrue(note.contains("bytes free, the object needs 1234"), note);
        assertTrue(note.contains("it was full when the write failed"), note);
    }

    @Test
    void anotherFailureWithRoomToSpareAddsNothing() {
        assertEquals("", DiskRoom.note(temp, 1234, new IOException("Permission denied")));
    }
}
