package io.pinshard.loader.augment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.format.Yuv420Descriptor;
import io.pinshard.loader.options.PixelFormat;
import io.pinshard.loader.options.PixelFormat.Layout;
import io.pinshard.loader.options.Resampler;
import io.pinshard.memory.DType;
import io.pinshard.memory.HeapCounter;
import io.pinshard.memory.HeapRounds;
import java.nio.ByteBuffer;
import java.util.Random;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The vector kernel against the plain float bilinear of {@link CropCorrectnessTest#reference}: random boxes
 * (seeded), every scale from 1-pixel boxes to the widest it takes, mirrored and not, odd output sizes; and a crop
 * allocates nothing.
 */
class VectorCropResizerTest {
    private static final int HEIGHT = 300;
    private static final int WIDTH = 700;
    private static final int STEP = WIDTH * 3 + 5; // rows not packed, as in a decoded scratch image

    @BeforeAll
    static void needsTheVectorModule() {
        String reason = Resampler.vectorUnavailableReason();
        assumeTrue(reason == null, "vector kernel not testable in this JVM: " + reason);
    }

    @ParameterizedTest(name = "crop {0}")
    @ValueSource(ints = {1, 5, 21, 224})
    void randomBoxesMatchTheReference(int crop) {
        byte[] image = smoothImage(7);
        Random random = new Random(crop);
        try (Images images = new Images(image, crop)) {
            VectorCropResizer kernel = new VectorCropResizer(crop);
            double meanError = 0;
            int sure = (int) (Resampler.VECTOR_SURE_SCALE * crop) + 1;
            for (int i = 0; i < 300; i++) {
                int width = 1 + random.nextInt(Math.min(WIDTH, sure));
                int height = 1 + random.nextInt(HEIGHT);
                CropBox box = new CropBox().set(random.nextInt(WIDTH - width + 1), random.nextInt(HEIGHT - height + 1),
                    width, height, random.nextBoolean());
                assertTrue(kernel.resizeInto(images.source, STEP, box, images.target), "kernel refused " + box);
                meanError += compare(images, image, box, crop) / 300;
            }
            assertTrue(meanError <= 0.5, "mean error at most 0.5 grey levels: " + meanError);
        }
    }

    @Test
    void edgeBoxesMatchTheReference() {
        int crop = 32;
        byte[] image = smoothImage(3);
        try (Images images = new Images(image, crop)) {
            VectorCropResizer kernel = new VectorCropResizer(crop);
            int widest = (int) (Resampler.VECTOR_SURE_SCALE * crop);
            int[][] boxes = {{0, 0, 1, 1}, {WIDTH - 1, HEIGHT - 1, 1, 1}, {0, 0, widest, HEIGHT}, {WIDTH - widest, 0, widest, 1},
                {5, 7, crop, crop}, {3, 3, 2, 2}, {0, 0, 1, HEIGHT}, {10, 0, 2 * crop, HEIGHT}};
            for (int[] b : boxes) {
                for (boolean flip : new boolean[] {false, true}) {
                    CropBox box = new CropBox().set(b[0], b[1], b[2], b[3], flip);
                    assertTrue(kernel.resizeInto(images.source, STEP, box, images.target), "kernel refused " + box);
                    compare(images, image, box, crop);
                }
            }
        }
    }

    @Test
    void aMirroredCropIsTheUnmirroredOneReversed() {
        int crop = 40;
        try (Images images = new Images(smoothImage(5), crop)) {
            VectorCropResizer kernel = new VectorCropResizer(crop);
            byte[] plain = images.run(kernel, new CropBox().set(13, 21, 97, 61, false));
            byte[] mirrored = images.run(kernel, new CropBox().set(13, 21, 97, 61, true));
            byte[] reversed = new byte[plain.length];
            for (int y = 0; y < crop; y++) {
                for (int x = 0; x < crop; x++) {
                    System.arraycopy(plain, (y * crop + x) * 3, reversed, (y * crop + crop - 1 - x) * 3, 3);
                }
            }
            assertArrayEquals(reversed, mirrored);
        }
    }

    @Test
    void boxesWiderThanTheWindowsAreRefusedUntouched() {
        int crop = 16;
        byte[] image = smoothImage(2);
        try (Images images = new Images(image, crop)) {
            VectorCropResizer kernel = new VectorCropResizer(crop);
            UnsafeBuffer target = new UnsafeBuffer(images.target, crop * crop * 3);
            target.setMemory(0, crop * crop * 3, (byte) 0x5A);
            CropBox tooWide = new CropBox().set(0, 0, Resampler.VECTOR_MAX_SCALE * crop + 2, 10, false);
            CropBox threeTimesMirrored = new CropBox().set(0, 0, 3 * crop, 10, true);
            boolean narrowWindows = VectorCropResizer.windowBytes() == 32;
            if (narrowWindows) { // 8 mirrored values of a 3x box span more than a 32-byte window
                assertFalse(kernel.resizeInto(images.source, STEP, threeTimesMirrored, images.target));
            }
            assertFalse(kernel.resizeInto(images.source, STEP, tooWide, images.target));
            for (int i = 0; i < crop * crop * 3; i++) {
                assertEquals((byte) 0x5A, target.getByte(i), "byte " + i + " written by a refused box");
            }
            if (!narrowWindows) { // 64-byte windows reach it: taken, and right
                assertTrue(kernel.resizeInto(images.source, STEP, threeTimesMirrored, images.target));
                compare(images, image, threeTimesMirrored, crop);
            }
        }
    }

    /**
     * A crop allocates nothing once compiled: from an RGB image and from yuv420 planes, writing uint8 and float rows
     * (the loader pom runs this once more with C2 barred from type profiles, where every vector call must be bound by
     * an exact class; before, 20 crops allocated 246 MB there).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"rgb UINT8 NHWC", "yuv420 UINT8 NHWC", "rgb FLOAT32 NCHW", "yuv420 BFLOAT16 NHWC"})
    void aCropAllocatesNothing(String what) {
        int crop = 224;
        String[] parts = what.split(" ");
        boolean yuv = parts[0].equals("yuv420");
        DType type = DType.valueOf(parts[1]);
        PixelFormat format = type == DType.UINT8 ? PixelFormat.UINT8_NHWC
            : PixelFormat.of(type, Layout.valueOf(parts[2]), new double[] {0.485, 0.456, 0.406},
                new double[] {0.229, 0.224, 0.225});
        byte[] image = smoothImage(9);
        try (Images images = new Images(image, crop, (int) format.imageBytes(crop))) {
            VectorCropResizer kernel = new VectorCropResizer(crop, format);
            // the image's bytes read as yuv420 planes: as good as any for the heap
            Yuv420Rows planes = new Yuv420Rows()
                .wrap(images.source, (int) Yuv420Descriptor.payloadLength(HEIGHT, WIDTH), HEIGHT, WIDTH);
            Random random = new Random(1);
            CropBox box = new CropBox();
            Runnable crops = () -> {
                for (int i = 0; i < 10; i++) {
                    next(random, box, crop);
                    assertTrue(yuv ? kernel.resizeInto(planes, box, images.target)
                        : kernel.resizeInto(images.source, STEP, box, images.target));
                }
            };
            long allocated = PixelRowsTest.heapAfterWarmUp(crops, 60, 2);
            assumeTrue(HeapCounter.currentThreadAllocatedBytes() >= 0, "no thread allocation counter in this JVM");
            assertTrue(allocated < HeapRounds.QUIET_BYTES, what + ": 20 crops allocated " + allocated + " heap bytes");
        }
    }

    private static void next(Random random, CropBox box, int crop) {
        int width = 1 + random.nextInt((int) (Resampler.VECTOR_SURE_SCALE * crop));
        int height = 1 + random.nextInt(HEIGHT);
        box.set(random.nextInt(WIDTH - width + 1), random.nextInt(HEIGHT - height + 1), width, height, random.nextBoolean());
    }

    /** Mean absolute error of the kernel's output for {@code box}; fails when any value is off by more than 2. */
    private static double compare(Images images, byte[] image, CropBox box, int crop) {
        byte[] expected = CropCorrectnessTest.reference(image, WIDTH, 3, box, crop, STEP);
        byte[] actual = new byte[expected.length];
        new UnsafeBuffer(images.target, actual.length).getBytes(0, actual);
        double sum = 0;
        for (int k = 0; k < actual.length; k++) {
            int error = Math.abs((actual[k] & 255) - (expected[k] & 255));
            assertTrue(error <= 2, box + " value " + k + ": " + (actual[k] & 255) + " vs " + (expected[k] & 255));
            sum += error;
        }
        return sum / actual.length;
    }

    /** Smooth gradients plus a gentle pattern: bilinear of it is meaningful, neighbours differ. */
    private static byte[] smoothImage(int seed) {
        byte[] image = new byte[HEIGHT * STEP];
        for (int y = 0; y < HEIGHT; y++) {
            for (int x = 0; x < WIDTH; x++) {
                for (int c = 0; c < 3; c++) {
                    double v = 127.5 + 60 * Math.sin((x * (c + 1) + seed) / 9.0) + 60 * Math.cos((y + 3 * c * seed) / 13.0);
                    image[y * STEP + x * 3 + c] = (byte) Math.max(0, Math.min(255, Math.round(v)));
                }
            }
        }
        return image;
    }

    /** The image and one output in native memory. */
    private static final class Images implements AutoCloseable {
        final ByteBuffer sourceMemory;
        final ByteBuffer targetMemory;
        final long source;
        final long target;
        final int crop;

        Images(byte[] image, int crop) {
            this(image, crop, crop * crop * 3);
        }

        Images(byte[] image, int crop, int targetBytes) {
            this.crop = crop;
            sourceMemory = ByteBuffer.allocateDirect(image.length);
            targetMemory = ByteBuffer.allocateDirect(targetBytes);
            new UnsafeBuffer(sourceMemory).putBytes(0, image);
            source = new UnsafeBuffer(sourceMemory).addressOffset();
            target = new UnsafeBuffer(targetMemory).addressOffset();
        }

        byte[] run(VectorCropResizer kernel, CropBox box) {
            assertTrue(kernel.resizeInto(source, STEP, box, target));
            byte[] out = new byte[crop * crop * 3];
            new UnsafeBuffer(target, out.length).getBytes(0, out);
            return out;
        }

        @Override
        public void close() {
            BufferUtil.free(sourceMemory);
            BufferUtil.free(targetMemory);
        }
    }
}
