package io.pinshard.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The paths binaryFile and users write, to local files or to none. */
class LocalFilesTest {
    @Test
    void fileUrisAndPlainPathsAreLocalOtherSchemesAreNot() {
        assertEquals(Path.of("/data/train/cat/a.jpg"), LocalFiles.of("file:/data/train/cat/a.jpg"));
        assertEquals(Path.of("/data/train/cat/a.jpg"), LocalFiles.of("file:///data/train/cat/a.jpg"));
        // binaryFile's paths are not percent-encoded: a blank, a percent sign and a colon stay as they are
        assertEquals(Path.of("/data/my photos/100%/a:b.jpg"), LocalFiles.of("file:/data/my photos/100%/a:b.jpg"));
        assertEquals(Path.of("/data/train"), LocalFiles.of("/data/train"));
        assertEquals(Path.of("relative/train"), LocalFiles.of("relative/train"));
        assertNull(LocalFiles.of("s3a://bucket/train/a.jpg"));
        assertNull(LocalFiles.of("hdfs://nn:8020/train"));
        assertNull(LocalFiles.of("file://fileserver/train/a.jpg"), "a file: URI on another host");
        assertEquals(Path.of("/train/a.jpg"), LocalFiles.of("file://localhost/train/a.jpg"));
    }

    @Test
    void stringsThatAreNoPathAreRefusedNotMisread() {
        for (String bad : new String[] {"file:", "file:relative/a.jpg", "file:/train/a\0b.jpg", "/train/a\0b.jpg"}) {
            assertThrows(IllegalArgumentException.class, () -> LocalFiles.of(bad), bad);
        }
    }
}
