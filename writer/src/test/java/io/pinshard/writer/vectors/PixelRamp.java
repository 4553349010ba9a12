package io.pinshard.writer.vectors;

/**
 * The pixel formula of the test vectors: {@code clamp(base + dy*y + dx*x + dc*c, 0, 255)} for the
 * uint8 sample at row y, column x, channel c. Smooth, so JPEG inputs decode close to it; with
 * {@code dx == 0} every row is one repeated pixel, so LZ4 finds matches.
 */
public record PixelRamp(int base, int dy, int dx, int dc) {
    /** The sample at row {@code y}, column {@code x}, channel {@code c}. */
    public int at(int y, int x, int c) {
        return Math.max(0, Math.min(255, base + dy * y + dx * x + dc * c));
    }

    /** A whole image, height x width x channels, row-major (HWC). */
    public byte[] pixels(int height, int width, int channels) {
        byte[] pixels = new byte[height * width * channels];
        int i = 0;
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                for (int c = 0; c < channels; c++) {
                    pixels[i++] = (byte) at(y, x, c);
                }
            }
        }
        return pixels;
    }
}
