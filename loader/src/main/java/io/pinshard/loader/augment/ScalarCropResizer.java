package io.pinshard.loader.augment;

import io.pinshard.loader.options.PixelFormat;
import io.pinshard.loader.options.Resampler;
import java.util.Arrays;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * {@link VectorCropResizer}'s arithmetic in plain Java, bit for bit: the same sampling ({@link BilinearAxis}), the
 * horizontal pass rounded to 8 bits, then the vertical blend rounded to 8 bits, then the rows written by the scalar
 * {@link PixelRows} (equal to {@link VectorPixelRows} by construction). About as fast as the vector kernel is slow
 * before C2 has compiled it: {@link WarmingCropKernel} crops with it until then, so a fresh process's first batches do
 * not wait for the Vector API's warm-up, and the pixels do not depend on which of the two made them. It takes boxes
 * up to the vector kernel's widest; callers that must match the vector kernel ask it first
 * ({@link VectorCropResizer#accepts}). Allocates nothing per call.
 */
final class ScalarCropResizer implements CropKernel {
    private static final int CHANNELS = 3;

    private final int crop;
    private final int values;
    /** The widest box taken: the vector kernel's widest. */
    private final int maxBoxWidth;
    private final int[] column;
    private final int[] columnWeight;
    private final int[] row;
    private final int[] rowWeight;
    /** Per output value: its left source byte in a box row, and the weight of the right one (3 bytes on). */
    private final int[] leftByte;
    private final int[] rightWeight;
    private final PixelRows rows;
    /** One box row, copied out of the image with a JVM-guarded copy. */
    private final byte[] sourceRow;
    /** Horizontally resized box rows, the two most recent, tagged with their row (-1: none). */
    private final byte[][] resized;
    private final int[] resizedTag = new int[2];
    private final byte[] outputRow;
    private final UnsafeBuffer source = new UnsafeBuffer(new byte[0]);
    private final UnsafeBuffer target = new UnsafeBuffer(new byte[0]);
    /** The yuv420 image of the crop in progress, or null when it reads RGB from {@link #source}. */
    private Yuv420Rows yuv;

    ScalarCropResizer(int crop, PixelFormat pixels) {
        this.crop = crop;
        this.values = crop * CHANNELS;
        this.column = new int[crop];
        this.columnWeight = new int[crop];
        this.row = new int[crop];
        this.rowWeight = new int[crop];
        this.leftByte = new int[values];
        this.rightWeight = new int[values];
        this.rows = new PixelRows(crop, pixels);
        this.maxBoxWidth = Resampler.VECTOR_MAX_SCALE * crop + 1;
        this.sourceRow = new byte[(maxBoxWidth + 1) * CHANNELS]; // + 1 pixel: a 1-pixel box's right neighbour
        this.resized = new byte[][] {new byte[values], new byte[values]};
        this.outputRow = new byte[values];
    }

    @Override
    public PixelRows rows() {
        return rows;
    }

    @Override
    public boolean resizeInto(long image, long step, CropBox box, long destination) {
        if (box.width > maxBoxWidth) {
            return false;
        }
        long lastByte = (long) (box.y + box.height - 1) * step + (long) (box.x + box.width) * CHANNELS;
        source.wrap(image, Math.toIntExact(lastByte));
        yuv = null;
        resize(box, step, destination);
        return true;
    }

    @Override
    public boolean resizeInto(Yuv420Rows image, CropBox box, long destination) {
        if (box.width > maxBoxWidth) {
            return false;
        }
        yuv = image;
        resize(box, 0, destination);
        yuv = null;
        return true;
    }

    /** The crop of {@code box} once the source is set ({@link #source}, or {@link #yuv}'s rows converted to RGB). */
    private void resize(CropBox box, long step, long destination) {
        BilinearAxis.fill(column, columnWeight, box.width, crop);
        BilinearAxis.fill(row, rowWeight, box.height, crop);
        for (int k = 0, pixel = 0; pixel < crop; pixel++) {
            int from = box.flip ? crop - 1 - pixel : pixel;
            for (int c = 0; c < CHANNELS; c++, k++) {
                leftByte[k] = column[from] * CHANNELS + c;
                rightWeight[k] = columnWeight[from];
            }
        }
        target.wrap(destination, Math.toIntExact(rows.imageBytes()));
        Arrays.fill(resizedTag, -1);
        for (int y = 0; y < crop; y++) {
            int top = row[y];
            byte[] upper = resizedRow(top, box, step);
            if (rowWeight[y] == 0) {
                rows.writeRow(upper, y, target);
                continue;
            }
            byte[] lower = resizedRow(Math.min(top + 1, box.height - 1), box, step);
            int weight = rowWeight[y];
            for (int k = 0; k < values; k++) {
                outputRow[k] = (byte) BilinearAxis.blend(upper[k] & 0xFF, lower[k] & 0xFF, weight);
            }
            rows.writeRow(outputRow, y, target);
        }
    }

    /** Box row {@code r}, horizontally resized: from the two-row cache, or read and resized into its older slot. */
    private byte[] resizedRow(int r, CropBox box, long step) {
        for (int slot = 0; slot < 2; slot++) {
            if (resizedTag[slot] == r) {
                return resized[slot];
            }
        }
        int slot = resizedTag[0] == r - 1 ? 1 : 0; // keep the row just above: the next output row may blend it
        byte[] into = resized[slot];
        resizedTag[slot] = r;
        if (yuv != null) {
            yuv.rgbRow(box.y + r, box.x, box.width, sourceRow, 0);
        } else {
            source.getBytes(Math.toIntExact((box.y + r) * step + (long) box.x * CHANNELS), sourceRow, 0,
                box.width * CHANNELS);
        }
        // a 1-pixel-wide box's right neighbours lie outside it, with weight 0: whatever sourceRow holds there (as the
        // vector kernel's window) counts for nothing
        for (int k = 0; k < values; k++) {
            int left = leftByte[k];
            into[k] = (byte) BilinearAxis.blend(sourceRow[left] & 0xFF, sourceRow[left + CHANNELS] & 0xFF,
                rightWeight[k]);
        }
        return into;
    }
}
