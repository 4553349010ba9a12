package io.pinshard.writer.vectors;

import io.pinshard.format.Codec;

/**
 * One record of a test vector, as the generator writes it and as readers must find it.
 *
 * @param jpegInput for {@link Codec#JPEG}, the file under {@code test-vectors/inputs/} stored as-is
 *                  (made once from {@link #ramp}); null otherwise
 */
public record VectorRecord(String key, int label, Codec codec, int height, int width, int channels, PixelRamp ramp,
                           String jpegInput) {
    public static VectorRecord raw(String key, int label, int height, int width, int channels, PixelRamp ramp) {
        return new VectorRecord(key, label, Codec.RAW, height, width, channels, ramp, null);
    }

    public static VectorRecord lz4(String key, int label, int height, int width, int channels, PixelRamp ramp) {
        return new VectorRecord(key, label, Codec.LZ4, height, width, channels, ramp, null);
    }

    public static VectorRecord jpeg(String key, int label, String input, int height, int width, int channels,
                                    PixelRamp ramp) {
        return new VectorRecord(key, label, Codec.JPEG, height, width, channels, ramp, input);
    }

    /** The pixels the record holds (exactly for raw and lz4; approximately, for jpeg). */
    public byte[] pixels() {
        return ramp.pixels(height, width, channels);
    }
}
