package io.pinshard.loader.augment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.format.Bt601;
import io.pinshard.format.Yuv420Descriptor;
import io.pinshard.loader.options.PixelFormat;
import io.pinshard.loader.options.Resampler;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.stream.Stream;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The scalar twin against the vector kernel, byte for byte, in every pixel format: random images (noise, so every
 * rounding shows) and random boxes from 1 pixel to the widest the vector kernel takes, mirrored and not; the boxes it
 * refuses, refused by the warming kernel too; and the warming kernel, before and after its warm-up, equal to both.
 */
class ScalarCropResizerTest {
    private static final int HEIGHT = 120;
    private static final int WIDTH = 700;
    private static final int STEP = WIDTH * 3 + 5;

    @BeforeAll
    static void needsTheVectorModule() {
        String reason = Resampler.vectorUnavailableReason();
        assumeTrue(reason == null, "vector kernel not in this JVM: " + reason);
    }

    static Stream<Arguments> formatsAndCrops() {
        return PixelRowsTest.formats().flatMap(format -> Stream.of(1, 2, 7, 33, 96)
            .map(crop -> Arguments.of(format, crop)));
    }

    @ParameterizedTest(name = "{0}, crop {1}")
    @MethodSource("formatsAndCrops")
    void randomBoxesGiveTheVectorKernelsBytes(PixelFormat format, int crop) {
        Random random = new Random(31L * crop + format.hashCode());
        randomBoxes(format, crop, random, HEIGHT, WIDTH, (vector, scalar, box, images) -> {
            if (!vector.resizeInto(images.source, STEP, box, images.target)) {
                return false;
            }
            byte[] expected = images.output();
            assertTrue(scalar.resizeInto(images.source, STEP, box, images.target), "scalar refused " + box);
            assertArrayEquals(expected, images.output(), format + ", crop " + crop + ", " + box);
            return true;
        });
    }

    /**
     * yuv420 planes of a 119 x 699 image (odd sides: edge chroma blocks of 2 and 1 pixels) of noise: the scalar twin's
     * crop equals the vector kernel's, and both equal the vector kernel's crop of the RGB the planes decode to
     * ({@link Bt601}), for random boxes at odd and even positions.
     */
    @ParameterizedTest(name = "{0}, crop {1}")
    @MethodSource("formatsAndCrops")
    void yuv420BoxesGiveTheVectorKernelsBytesAndTheCropOfTheirRgb(PixelFormat format, int crop) {
        int height = HEIGHT - 1;
        int width = WIDTH - 1;
        Random random = new Random(71L * crop + format.hashCode());
        byte[] planes = new byte[(int) Yuv420Descriptor.payloadLength(height, width)];
        random.nextBytes(planes);
        byte[] rgb = new byte[height * width * 3];
        Bt601.decode(planes, 0, height, width, rgb, 0);
        ByteBuffer planesMemory = ByteBuffer.allocateDirect(planes.length);
        ByteBuffer rgbMemory = ByteBuffer.allocateDirect(rgb.length);
        new UnsafeBuffer(planesMemory).putBytes(0, planes);
        new UnsafeBuffer(rgbMemory).putBytes(0, rgb);
        Yuv420Rows yuv = new Yuv420Rows().wrap(BufferUtil.address(planesMemory), planes.length, height, width);
        long rgbImage = BufferUtil.address(rgbMemory);
        try {
            randomBoxes(format, crop, random, height, width, (vector, scalar, box, images) -> {
                if (!vector.resizeInto(rgbImage, width * 3L, box, images.target)) {
                    assertFalse(vector.resizeInto(yuv, box, images.target), "refused as RGB, taken as yuv420: " + box);
                    return false;
                }
                byte[] expected = images.output();
                assertTrue(vector.resizeInto(yuv, box, images.target), "vector refused yuv420 " + box);
                assertArrayEquals(expected, images.output(), "vector, yuv420 against RGB, " + format + ", " + box);
                assertTrue(scalar.resizeInto(yuv, box, images.target), "scalar refused yuv420 " + box);
                assertArrayEquals(expected, images.output(), "scalar, yuv420, " + format + ", crop " + crop + ", " + box);
                return true;
            });
        } finally {
            BufferUtil.free(planesMemory);
            BufferUtil.free(rgbMemory);
        }
    }

    @Test
    void theWarmingKernelRefusesWhatTheVectorKernelRefusesAndGivesItsBytesOnEitherSideOfTheSwitch() {
        int crop = 24;
        PixelFormat format = PixelFormat.UINT8_NHWC;
        Random random = new Random(5);
        try (Images images = new Images(random, format.imageBytes(crop))) {
            VectorCropResizer vector = new VectorCropResizer(crop, format);
            WarmingCropKernel warming = new WarmingCropKernel(crop, format);
            VectorWarmUp warmUp = VectorWarmUp.of(crop, format);
            CropBox tooWide = new CropBox().set(0, 0, Resampler.VECTOR_MAX_SCALE * crop + 2, 10, false);
            assertFalse(vector.resizeInto(images.source, STEP, tooWide, images.target));
            assertFalse(warming.resizeInto(images.source, STEP, tooWide, images.target), "refused before and after");
            CropBox box = new CropBox();
            int afterSwitch = 0;
            while (afterSwitch < 20) { // until 20 crops after the switch: the warm-up thread ends in any case
                boolean warmed = warmUp.done();
                int width = 1 + random.nextInt(2 * crop);
                int height = 1 + random.nextInt(HEIGHT);
                box.set(random.nextInt(WIDTH - width + 1), random.nextInt(HEIGHT - height + 1), width, height,
                    random.nextBoolean());
                assertTrue(vector.resizeInto(images.source, STEP, box, images.target));
                byte[] expected = images.output();
                assertTrue(warming.resizeInto(images.source, STEP, box, images.target));
                assertArrayEquals(expected, images.output(), (warmed ? "vector: " : "scalar: ") + box);
                afterSwitch += warmed ? 1 : 0;
            }
            assertEquals(warmUp, VectorWarmUp.of(crop, format), "one warm-up per format and JVM");
        }
    }

    @Test
    void theWarmUpCropsOnlyOnceTheWorkersHaveMadeTheFirstBatchOfCropsThenFinishes() throws InterruptedException {
        VectorWarmUp warmUp = VectorWarmUp.start(8, PixelFormat.UINT8_NHWC, 5);
        for (int crop = 1; crop < 5; crop++) {
            warmUp.scalarCropped();
            assertFalse(warmUp.started(), "began after " + crop + " of the 5 crops it waits for");
        }
        warmUp.scalarCropped(); // the fifth: wakes the thread, which crops until the kernel is compiled (or gives up)
        while (!warmUp.done()) {
            Thread.sleep(10);
        }
        assertTrue(warmUp.started());
        warmUp.scalarCropped(); // counts past the start change nothing
        assertTrue(warmUp.done());
    }

    /** One comparison of the kernels on {@code box}: whether the vector kernel took it (and so it was compared). */
    private interface BoxCheck {
        boolean taken(VectorCropResizer vector, ScalarCropResizer scalar, CropBox box, Images images);
    }

    /** {@code check} on 120 random boxes of an {@code height x width} image, of which at least 60 must be taken. */
    private static void randomBoxes(PixelFormat format, int crop, Random random, int height, int width, BoxCheck check) {
        try (Images images = new Images(random, format.imageBytes(crop))) {
            VectorCropResizer vector = new VectorCropResizer(crop, format);
            ScalarCropResizer scalar = new ScalarCropResizer(crop, format);
            CropBox box = new CropBox();
            int compared = 0;
            for (int i = 0; i < 120; i++) {
                randomBox(random, box, crop, height, width);
                compared += check.taken(vector, scalar, box, images) ? 1 : 0;
            }
            assertTrue(compared >= 60, "only " + compared + " of 120 boxes taken");
        }
    }

    /** A random box of an {@code height x width} image, from 1 pixel to the widest the vector kernel takes. */
    private static void randomBox(Random random, CropBox box, int crop, int height, int width) {
        int boxWidth = 1 + random.nextInt(Math.min(width, Resampler.VECTOR_MAX_SCALE * crop + 1));
        int boxHeight = 1 + random.nextInt(height);
        box.set(random.nextInt(width - boxWidth + 1), random.nextInt(height - boxHeight + 1), boxWidth, boxHeight,
            random.nextBoolean());
    }

    /** A noise image and one output in native memory. */
    private static final class Images implements AutoCloseable {
        final ByteBuffer sourceMemory;
        final ByteBuffer targetMemory;
        final long source;
        final long target;
        final int outputBytes;

        Images(Random random, long outputBytes) {
            byte[] image = new byte[HEIGHT * STEP];
            random.nextBytes(image);
            this.outputBytes = Math.toIntExact(outputBytes);
            sourceMemory = ByteBuffer.allocateDirect(image.length);
            targetMemory = ByteBuffer.allocateDirect(this.outputBytes);
            new UnsafeBuffer(sourceMemory).putBytes(0, image);
            source = new UnsafeBuffer(sourceMemory).addressOffset();
            target = new UnsafeBuffer(targetMemory).addressOffset();
        }

        byte[] output() {
            byte[] out = new byte[outputBytes];
            new UnsafeBuffer(target, outputBytes).getBytes(0, out);
            new UnsafeBuffer(target, outputBytes).setMemory(0, outputBytes, (byte) 0x5A); // stale bytes must not pass
            return out;
        }

        @Override
        public void close() {
            BufferUtil.free(sourceMemory);
            BufferUtil.free(targetMemory);
        }
    }
}
