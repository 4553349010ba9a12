package io.pinshard.loader.augment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.loader.options.Resampler;
import io.pinshard.memory.HeapCounter;
import io.pinshard.memory.HeapRounds;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Boxes follow their pixels: against a reference computed here another way (the crop as an affine map of the box's
 * four corners, min/max, then the stated clip-and-drop rule), and against the pixels themselves (a painted box
 * cropped by the real resizer lands where its transformed box says).
 */
class BoxTransformTest {
    private static final int MAX_BOXES = 64;

    /** The reference: corners through the map, bounding box of the images, clip, keep by the documented rule. */
    static List<float[]> reference(List<float[]> boxes, CropBox crop, int side, double minVisible) {
        List<float[]> kept = new ArrayList<>();
        for (float[] b : boxes) {
            boolean finite = true;
            for (float v : b) {
                finite &= Float.isFinite(v);
            }
            if (!finite || !(b[0] < b[2]) || !(b[1] < b[3])) {
                continue;
            }
            double minX = Double.MAX_VALUE;
            double maxX = -Double.MAX_VALUE;
            double minY = Double.MAX_VALUE;
            double maxY = -Double.MAX_VALUE;
            for (int corner = 0; corner < 4; corner++) {
                double px = corner % 2 == 0 ? b[0] : b[2];
                double py = corner < 2 ? b[1] : b[3];
                double u = (px - crop.x) / crop.width * side;
                double v = (py - crop.y) / crop.height * side;
                if (crop.flip) {
                    u = side - u;
                }
                minX = Math.min(minX, u);
                maxX = Math.max(maxX, u);
                minY = Math.min(minY, v);
                maxY = Math.max(maxY, v);
            }
            double[] clipped = {clamp(minX, side), clamp(minY, side), clamp(maxX, side), clamp(maxY, side)};
            double visible = (clipped[2] - clipped[0]) * (clipped[3] - clipped[1]);
            boolean positive = clipped[2] > clipped[0] && clipped[3] > clipped[1];
            if (positive && visible >= minVisible * (maxX - minX) * (maxY - minY)) {
                kept.add(new float[] {(float) clipped[0], (float) clipped[1], (float) clipped[2], (float) clipped[3],
                    boxes.indexOf(b)});
            }
        }
        return kept;
    }

    private static double clamp(double v, int side) {
        return Math.max(0, Math.min(side, v));
    }

    @Test
    void randomBoxesAndCropsMatchTheReference() {
        Random random = new Random(42);
        try (Boxes memory = new Boxes()) {
            for (int round = 0; round < 2000; round++) {
                int imageWidth = 20 + random.nextInt(400);
                int imageHeight = 20 + random.nextInt(400);
                CropBox crop = randomCrop(random, imageWidth, imageHeight);
                int side = 8 + random.nextInt(300);
                double minVisible = new double[] {0, 0.25, 0.5, 1}[random.nextInt(4)];
                List<float[]> boxes = new ArrayList<>();
                int count = random.nextInt(MAX_BOXES + 1);
                for (int i = 0; i < count; i++) {
                    boxes.add(randomBox(random, imageWidth, imageHeight));
                }
                List<float[]> expected = reference(boxes, crop, side, minVisible);
                memory.put(boxes);
                int kept = new BoxTransform(minVisible).transform(memory.source, count, crop, side, memory.target,
                    memory.indexes);
                String context = "round " + round + ", " + crop + " -> " + side + ", minVisible " + minVisible;
                assertEquals(expected.size(), kept, context);
                for (int i = 0; i < kept; i++) {
                    float[] want = expected.get(i);
                    for (int k = 0; k < 4; k++) {
                        assertEquals(want[k], memory.target(i, k), 1e-3f * side, context + ", box " + i + "." + k);
                    }
                    assertEquals((int) want[4], memory.index(i), context);
                }
            }
        }
    }

    @Test
    void theRuleAtItsEdges() {
        CropBox crop = new CropBox().set(10, 10, 20, 20, false);
        try (Boxes memory = new Boxes()) {
            // inside, half outside, just touching the crop's edge, wholly outside
            memory.put(List.of(new float[] {12, 12, 18, 18}, new float[] {0, 15, 20, 25}, new float[] {0, 0, 10, 30},
                new float[] {40, 40, 50, 50}));
            assertEquals(2, new BoxTransform(0).transform(memory.source, 4, crop, 20, memory.target, memory.indexes));
            assertEquals(List.of(2f, 2f, 8f, 8f), memory.box(0));
            assertEquals(List.of(0f, 5f, 10f, 15f), memory.box(1), "clipped at the crop's left edge");
            assertEquals(1, memory.index(1));
            memory.put(List.of(new float[] {12, 12, 18, 18}, new float[] {0, 15, 20, 25}));
            assertEquals(1, new BoxTransform(0.6).transform(memory.source, 2, crop, 20, memory.target, 0),
                "half visible is under 0.6");
            assertEquals(2, new BoxTransform(0.5).transform(memory.source, 2, crop, 20, memory.target, 0),
                "half visible is at 0.5");
            crop.flip = true;
            memory.put(List.of(new float[] {12, 12, 18, 18}));
            assertEquals(1, new BoxTransform(0).transform(memory.source, 1, crop, 40, memory.target, 0));
            assertEquals(List.of(24f, 4f, 36f, 16f), memory.box(0), "mirrored and scaled 2x");
        }
    }

    @Test
    void boxesThatAreNotBoxesAreDropped() {
        CropBox crop = new CropBox().set(0, 0, 50, 50, false);
        try (Boxes memory = new Boxes()) {
            float nan = Float.NaN;
            float inf = Float.POSITIVE_INFINITY;
            memory.put(List.of(new float[] {nan, 1, 5, 5}, new float[] {1, 1, inf, 5}, new float[] {-inf, 1, 5, 5},
                new float[] {5, 1, 5, 5}, new float[] {6, 1, 5, 5}, new float[] {1, 9, 5, 2}, new float[] {1, 1, 5, 5}));
            assertEquals(1, new BoxTransform(0).transform(memory.source, 7, crop, 50, memory.target, memory.indexes));
            assertEquals(6, memory.index(0));
            assertEquals(List.of(1f, 1f, 5f, 5f), memory.box(0));
        }
        assertThrows(IllegalArgumentException.class, () -> new BoxTransform(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> new BoxTransform(1.5));
        assertThrows(IllegalArgumentException.class,
            () -> new BoxTransform(0).transform(0, -1, new CropBox().set(0, 0, 1, 1, false), 8, 0, 0));
    }

    @Test
    void transformingInPlaceGivesTheSameBoxes() {
        Random random = new Random(3);
        try (Boxes memory = new Boxes()) {
            CropBox crop = randomCrop(random, 300, 200);
            List<float[]> boxes = new ArrayList<>();
            for (int i = 0; i < MAX_BOXES; i++) {
                boxes.add(randomBox(random, 300, 200));
            }
            memory.put(boxes);
            int kept = new BoxTransform(0.3).transform(memory.source, MAX_BOXES, crop, 96, memory.target, 0);
            int inPlace = new BoxTransform(0.3).transform(memory.source, MAX_BOXES, crop, 96, memory.source, 0);
            assertEquals(kept, inPlace);
            for (int i = 0; i < kept; i++) {
                assertEquals(memory.box(i), memory.sourceBox(i));
            }
        }
    }

    /** A painted box, cropped and mirrored by the real resizer, is bright exactly where its transformed box says. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Resampler.class, names = {"OPENCV", "VECTOR"})
    void thePixelsOfAPaintedBoxLandInsideItsTransformedBox(Resampler resampler) {
        String reason = Resampler.vectorUnavailableReason();
        assumeTrue(resampler != Resampler.VECTOR || reason == null, "vector kernel not runnable here: " + reason);
        int width = 160;
        int height = 120;
        int side = 64;
        Random random = new Random(7);
        ByteBuffer image = ByteBuffer.allocateDirect(width * height * 3);
        ByteBuffer output = ByteBuffer.allocateDirect(side * side * 3);
        UnsafeBuffer pixels = new UnsafeBuffer(image);
        UnsafeBuffer out = new UnsafeBuffer(output);
        int checked = 0;
        try (CropResizer resizer = new CropResizer(side, resampler); Boxes memory = new Boxes()) {
            for (int round = 0; round < 300; round++) {
                int x0 = random.nextInt(width - 20);
                int y0 = random.nextInt(height - 20);
                int x1 = x0 + 12 + random.nextInt(Math.min(60, width - x0 - 12) + 1);
                int y1 = y0 + 12 + random.nextInt(Math.min(60, height - y0 - 12) + 1);
                x1 = Math.min(x1, width);
                y1 = Math.min(y1, height);
                pixels.setMemory(0, width * height * 3, (byte) 0);
                for (int y = y0; y < y1; y++) {
                    pixels.setMemory((y * width + x0) * 3, (x1 - x0) * 3, (byte) 255);
                }
                int cw = side / 2 + random.nextInt(width - side / 2 + 1);
                int ch = side / 2 + random.nextInt(height - side / 2 + 1);
                CropBox crop = new CropBox().set(random.nextInt(width - cw + 1), random.nextInt(height - ch + 1), cw, ch,
                    random.nextBoolean());
                resizer.resizeInto(BufferUtil.address(image), width * 3L, 3, crop, BufferUtil.address(output));
                memory.put(List.of(new float[] {x0, y0, x1, y1}));
                int kept = new BoxTransform(0).transform(memory.source, 1, crop, side, memory.target, 0);
                int[] bright = brightBounds(out, side);
                String context = "box " + x0 + "," + y0 + "," + x1 + "," + y1 + " through " + crop;
                if (kept == 0) {
                    assertTrue(bright == null || (bright[2] - bright[0]) * (bright[3] - bright[1]) <= side,
                        context + ": dropped, yet bright pixels at " + java.util.Arrays.toString(bright));
                    continue;
                }
                List<Float> box = memory.box(0);
                if (box.get(2) - box.get(0) < 3 || box.get(3) - box.get(1) < 3) {
                    continue; // a sliver: bilinear blur decides its few pixels, not geometry
                }
                assertTrue(bright != null, context + ": kept as " + box + ", yet no bright pixel");
                for (int k = 0; k < 4; k++) {
                    assertEquals(box.get(k), bright[k], 1.5, context + ": transformed " + box + ", bright pixels "
                        + java.util.Arrays.toString(bright));
                }
                checked++;
            }
        }
        assertTrue(checked > 100, "only " + checked + " boxes big enough to check");
    }

    @Test
    void aCallAllocatesNothing() {
        Random random = new Random(9);
        try (Boxes memory = new Boxes()) {
            List<float[]> boxes = new ArrayList<>();
            for (int i = 0; i < MAX_BOXES; i++) {
                boxes.add(randomBox(random, 320, 240));
            }
            memory.put(boxes);
            BoxTransform transform = new BoxTransform(0.25);
            CropBox crop = new CropBox();
            Runnable round = () -> {
                for (int i = 0; i < 200; i++) {
                    crop.set(i % 50, i % 30, 200 + i % 100, 150 + i % 80, (i & 1) == 0);
                    transform.transform(memory.source, MAX_BOXES, crop, 224, memory.target, memory.indexes);
                }
            };
            HeapRounds.untilQuiet(round, 3, 100);
            long before = HeapCounter.currentThreadAllocatedBytes();
            assumeTrue(before >= 0, "no thread allocation counter in this JVM");
            long allocated = HeapRounds.least(5, 0, round);
            assertEquals(0, allocated, "200 calls of 64 boxes allocated heap bytes");
        }
    }

    /** Edges of the bright (> 127) pixels of the red channel as pixel edges {x0, y0, x1, y1}, or null. */
    private static int[] brightBounds(UnsafeBuffer out, int side) {
        int[] bounds = {Integer.MAX_VALUE, Integer.MAX_VALUE, -1, -1};
        for (int y = 0; y < side; y++) {
            for (int x = 0; x < side; x++) {
                if ((out.getByte((y * side + x) * 3) & 0xFF) > 127) {
                    bounds[0] = Math.min(bounds[0], x);
                    bounds[1] = Math.min(bounds[1], y);
                    bounds[2] = Math.max(bounds[2], x + 1);
                    bounds[3] = Math.max(bounds[3], y + 1);
                }
            }
        }
        return bounds[2] < 0 ? null : bounds;
    }

    private static CropBox randomCrop(Random random, int imageWidth, int imageHeight) {
        int w = 1 + random.nextInt(imageWidth);
        int h = 1 + random.nextInt(imageHeight);
        return new CropBox().set(random.nextInt(imageWidth - w + 1), random.nextInt(imageHeight - h + 1), w, h,
            random.nextBoolean());
    }

    /** A box anywhere around the image, sometimes outside it, sometimes degenerate or not finite. */
    private static float[] randomBox(Random random, int imageWidth, int imageHeight) {
        if (random.nextInt(20) == 0) {
            float[] odd = {1, 1, 5, 5};
            odd[random.nextInt(4)] = new float[] {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 3}[
                random.nextInt(4)];
            return odd;
        }
        float x0 = (float) (random.nextDouble() * imageWidth * 1.4 - imageWidth * 0.2);
        float y0 = (float) (random.nextDouble() * imageHeight * 1.4 - imageHeight * 0.2);
        return new float[] {x0, y0, x0 + (float) (random.nextDouble() * imageWidth * 0.6),
            y0 + (float) (random.nextDouble() * imageHeight * 0.6)};
    }

    /** Native memory for up to {@link #MAX_BOXES} boxes in, out, and kept indexes. */
    private static final class Boxes implements AutoCloseable {
        final ByteBuffer memory = ByteBuffer.allocateDirect(MAX_BOXES * (2 * BoxTransform.BOX_BYTES + Integer.BYTES))
            .order(ByteOrder.nativeOrder());
        final long source = BufferUtil.address(memory);
        final long target = source + MAX_BOXES * BoxTransform.BOX_BYTES;
        final long indexes = target + MAX_BOXES * BoxTransform.BOX_BYTES;
        final UnsafeBuffer view = new UnsafeBuffer(memory);

        void put(List<float[]> boxes) {
            for (int i = 0; i < boxes.size(); i++) {
                for (int k = 0; k < 4; k++) {
                    view.putFloat((i * 4 + k) * Float.BYTES, boxes.get(i)[k]);
                }
            }
        }

        float target(int box, int k) {
            return view.getFloat(MAX_BOXES * BoxTransform.BOX_BYTES + (box * 4 + k) * Float.BYTES);
        }

        List<Float> box(int box) {
            return List.of(target(box, 0), target(box, 1), target(box, 2), target(box, 3));
        }

        List<Float> sourceBox(int box) {
            return List.of(view.getFloat(box * 16), view.getFloat(box * 16 + 4), view.getFloat(box * 16 + 8),
                view.getFloat(box * 16 + 12));
        }

        int index(int i) {
            return view.getInt(2 * MAX_BOXES * BoxTransform.BOX_BYTES + i * Integer.BYTES);
        }

        @Override
        public void close() {
            BufferUtil.free(memory);
        }
    }
}
