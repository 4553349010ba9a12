package io.pinshard.loader.augment;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.loader.options.Resampler;
import java.nio.ByteBuffer;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/**
 * OpenCV's images are made only by the first crop that needs them: a resizer whose crops all go to the vector
 * kernel never makes them (so a loader over 3-channel shards never loads OpenCV's natives), and the first grey
 * crop makes them and still crops right.
 */
class CropResizerOpenCvTest {
    private static final int WIDTH = 96;
    private static final int HEIGHT = 80;
    private static final int SIDE = 32;

    @Test
    void openCvIsMadeOnlyWhenACropFirstNeedsIt() {
        String reason = Resampler.vectorUnavailableReason();
        assumeTrue(reason == null, "vector kernel not runnable here: " + reason);
        ByteBuffer rgb = ByteBuffer.allocateDirect(WIDTH * HEIGHT * 3);
        ByteBuffer grey = ByteBuffer.allocateDirect(WIDTH * HEIGHT);
        for (int i = 0; i < WIDTH * HEIGHT; i++) {
            grey.put(i, (byte) (i * 7));
            for (int c = 0; c < 3; c++) {
                rgb.put(3 * i + c, (byte) (i * 7)); // the grey image in three channels
            }
        }
        ByteBuffer fromRgb = ByteBuffer.allocateDirect(SIDE * SIDE * 3);
        ByteBuffer fromGrey = ByteBuffer.allocateDirect(SIDE * SIDE * 3);
        CropBox box = new CropBox().set(10, 6, 48, 40, true);
        try (CropResizer resizer = new CropResizer(SIDE, Resampler.VECTOR)) {
            for (int i = 0; i < 20; i++) {
                resizer.resizeInto(BufferUtil.address(rgb), WIDTH * 3L, 3, box, BufferUtil.address(fromRgb));
            }
            assertFalse(resizer.openCvLoaded(), "3-channel crops the kernel takes need no OpenCV");
            resizer.resizeInto(BufferUtil.address(grey), WIDTH, 1, box, BufferUtil.address(fromGrey));
            assertTrue(resizer.openCvLoaded(), "a grey crop goes to OpenCV");
            byte[] a = new byte[SIDE * SIDE * 3];
            byte[] b = new byte[SIDE * SIDE * 3];
            new UnsafeBuffer(fromRgb).getBytes(0, a);
            new UnsafeBuffer(fromGrey).getBytes(0, b);
            for (int i = 0; i < a.length; i++) {
                assertTrue(Math.abs((a[i] & 0xFF) - (b[i] & 0xFF)) <= 1, "pixel byte " + i + ": kernel " + (a[i] & 0xFF)
                    + ", OpenCV " + (b[i] & 0xFF));
            }
        }
        try (CropResizer opencv = new CropResizer(SIDE, Resampler.OPENCV)) {
            assertTrue(opencv.openCvLoaded(), "with no kernel, OpenCV is made at once (and fails there if it must)");
        }
    }
}
