package io.pinshard.loader.augment;

/**
 * The bilinear resize's sampling along one axis, shared by the crop kernels so they sample alike: for each output
 * pixel, the left (top) source index and the 8-bit fixed-point weight of its right (bottom) neighbour, with OpenCV's
 * and torchvision's half-pixel mapping and edge clamp.
 */
final class BilinearAxis {
    /** Fixed-point bits of a weight: a weight of 1 is {@link #ONE}. */
    static final int WEIGHT_BITS = 8;
    static final int ONE = 1 << WEIGHT_BITS;
    /** Added before the shift right by {@link #WEIGHT_BITS}: round half up. */
    static final int ROUND = 1 << (WEIGHT_BITS - 1);

    private BilinearAxis() {
    }

    /** Fills {@code index[0..output)} and {@code weight[0..output)} for an axis of {@code length} source pixels. */
    static void fill(int[] index, int[] weight, int length, int output) {
        double scale = (double) length / output;
        for (int p = 0; p < output; p++) {
            double position = (p + 0.5) * scale - 0.5;
            int left = 0;
            double fraction = 0;
            if (position > 0) {
                left = (int) position;
                fraction = position - left;
            }
            if (left >= length - 1) {
                left = Math.max(length - 2, 0);
                fraction = length >= 2 ? 1 : 0;
            }
            index[p] = left;
            weight[p] = (int) (fraction * ONE + 0.5);
        }
    }

    /** {@code (a * (ONE - w) + b * w + ROUND) >> WEIGHT_BITS} of two bytes: below 2^16, as the 16-bit lanes hold it. */
    static int blend(int a, int b, int w) {
        return (a * (ONE - w) + b * w + ROUND) >>> WEIGHT_BITS;
    }
}
