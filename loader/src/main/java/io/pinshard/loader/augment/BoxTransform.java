package io.pinshard.loader.augment;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Moves a sample's boxes through the crop and mirror its pixels got, so that a detection target still frames its
 * object in the output image.
 *
 * <p>A box is four float32 {@code x0, y0, x1, y1} in pixels of the stored image, measured at pixel edges (a box
 * covering pixel (0, 0) alone is {@code 0, 0, 1, 1}), packed {@link #BOX_BYTES} apart. Its place in the output of
 * a {@code crop}-pixel crop of {@link CropBox} {@code (x, y, width, height, flip)} is the affine map the resizer
 * applies to pixel edges: {@code x' = (x - box.x) * crop / box.width}, {@code y' = (y - box.y) * crop / box.height},
 * then {@code x' -> crop - x'} (with the two edges swapped) when flipped.
 *
 * <p><b>The rule for boxes the crop cuts.</b> A box is clipped to {@code [0, crop]} on both axes. It is
 * <em>kept</em> when its clipped part has a positive width and height and at least {@code minVisible} of its mapped
 * area ({@code 0} keeps any visible sliver, {@code 1} only boxes wholly inside the crop); otherwise it is
 * <em>dropped</em>. A box that is not a box (a NaN or infinite coordinate, {@code x1 <= x0} or {@code y1 <= y0}) is
 * dropped too: hostile values never reach a trainer. Kept boxes are written packed, in their input order, and the
 * index of each kept box is written beside them, so per-box fields (a class per box) can follow the same selection.
 *
 * <p>Native memory in and out through reused views: a call allocates nothing on the heap. One instance per worker.
 */
public final class BoxTransform {
    /** Floats per box: x0, y0, x1, y1. */
    public static final int BOX_FLOATS = 4;
    /** Bytes per box. */
    public static final int BOX_BYTES = BOX_FLOATS * Float.BYTES;

    private final double minVisible;
    private final UnsafeBuffer in = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer out = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer kept = new UnsafeBuffer(0, 0);

    /** @param minVisible the share of a box's mapped area that must stay inside the crop for it to be kept, 0 to 1 */
    public BoxTransform(double minVisible) {
        if (!(minVisible >= 0 && minVisible <= 1)) {
            throw new IllegalArgumentException("minVisible must be between 0 and 1: " + minVisible);
        }
        this.minVisible = minVisible;
    }

    public double minVisible() {
        return minVisible;
    }

    /**
     * Transforms {@code count} boxes at {@code source} for the {@code crop}-pixel output of {@code box} and writes
     * the kept ones packed to {@code destination} (room for {@code count} boxes) and their input indexes as int32 to
     * {@code keptIndexes} (room for {@code count}; 0 for none wanted). Source and destination may be the same memory.
     *
     * @return how many boxes were kept
     */
    public int transform(long source, int count, CropBox box, int crop, long destination, long keptIndexes) {
        if (count < 0 || crop < 1 || box.width < 1 || box.height < 1) {
            throw new IllegalArgumentException("boxes " + count + ", crop " + crop + ", " + box);
        }
        if (count == 0) {
            return 0;
        }
        in.wrap(source, count * BOX_BYTES);
        out.wrap(destination, count * BOX_BYTES);
        if (keptIndexes != 0) {
            kept.wrap(keptIndexes, count * Integer.BYTES);
        }
        double scaleX = (double) crop / box.width;
        double scaleY = (double) crop / box.height;
        int written = 0;
        for (int i = 0; i < count; i++) {
            int at = i * BOX_BYTES;
            double x0 = in.getFloat(at);
            double y0 = in.getFloat(at + Float.BYTES);
            double x1 = in.getFloat(at + 2 * Float.BYTES);
            double y1 = in.getFloat(at + 3 * Float.BYTES);
            // NaN fails every comparison, so !(a < b) also drops NaN; infinities fail isFinite.
            if (!(x0 < x1 && y0 < y1) || !Double.isFinite(x0) || !Double.isFinite(x1) || !Double.isFinite(y0)
                || !Double.isFinite(y1)) {
                continue;
            }
            double left = (x0 - box.x) * scaleX;
            double right = (x1 - box.x) * scaleX;
            if (box.flip) {
                double mirroredLeft = crop - right;
                right = crop - left;
                left = mirroredLeft;
            }
            double top = (y0 - box.y) * scaleY;
            double bottom = (y1 - box.y) * scaleY;
            double area = (right - left) * (bottom - top);
            double clippedLeft = Math.max(0, left);
            double clippedRight = Math.min(crop, right);
            double clippedTop = Math.max(0, top);
            double clippedBottom = Math.min(crop, bottom);
            double visibleWidth = clippedRight - clippedLeft;
            double visibleHeight = clippedBottom - clippedTop;
            if (!(visibleWidth > 0 && visibleHeight > 0) || visibleWidth * visibleHeight < minVisible * area) {
                continue;
            }
            int to = written * BOX_BYTES;
            out.putFloat(to, (float) clippedLeft);
            out.putFloat(to + Float.BYTES, (float) clippedTop);
            out.putFloat(to + 2 * Float.BYTES, (float) clippedRight);
            out.putFloat(to + 3 * Float.BYTES, (float) clippedBottom);
            if (keptIndexes != 0) {
                kept.putInt(written * Integer.BYTES, i);
            }
            written++;
        }
        return written;
    }
}
