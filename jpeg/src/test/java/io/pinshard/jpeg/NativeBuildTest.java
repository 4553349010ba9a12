package io.pinshard.jpeg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The build's promise: where g++ and jpeglib.h are, the binding is built and loads (a silent skip would hide a break). */
class NativeBuildTest {
    @Test
    void theBindingIsBuiltAndLoadsWhereTheToolsAre() {
        boolean tools = Files.exists(Path.of("/usr/include/jpeglib.h")) && onPath("g++");
        assumeTrue(tools, "no g++ or /usr/include/jpeglib.h here: the build skips the binding by design");
        assumeTrue(!"opencv".equals(System.getProperty(TurboJpeg.PROPERTY)), "-D" + TurboJpeg.PROPERTY + "=opencv");
        assertNull(TurboJpeg.unavailableReason());
        assertTrue(TurboJpeg.available("a test"));
        assertTrue(TurboJpeg.describe().startsWith("libjpeg-turbo"), TurboJpeg.describe());
    }

    @Test
    void scaledSidesRoundUpAsLibjpegDoes() {
        assertEquals(1, RegionDecoder.scaledSide(1, 1));
        assertEquals(40, RegionDecoder.scaledSide(320, 1));
        assertEquals(41, RegionDecoder.scaledSide(321, 1));
        assertEquals(120, RegionDecoder.scaledSide(320, 3));
        assertEquals(301, RegionDecoder.scaledSide(301, 8));
        assertEquals(113, RegionDecoder.scaledSide(301, 3));
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }
}
