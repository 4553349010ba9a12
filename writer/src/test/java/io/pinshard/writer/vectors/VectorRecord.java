package io.pinshard.writer.vectors;

import io.pinshard.format.Bt601;
import io.pinshard.format.Codec;
import io.pinshard.format.Yuv420Descriptor;
import java.util.Arrays;
import java.util.List;

/**
 * One record of a test vector, as the generator writes it and as readers must find it.
 *
 * @param jpegInput for {@link Codec#JPEG}, the file under {@code test-vectors/inputs/} stored as-is
 *                  (made once from {@link #ramp}); null otherwise
 * @param fieldValues one value per field of the vector's schema, in order: a {@code String} (utf8, json), a
 *                    {@code byte[]} (bytes), an {@code int[]}, {@code long[]} or {@code float[]}; empty without fields
 */
public record VectorRecord(String key, int label, Codec codec, int height, int width, int channels, PixelRamp ramp,
                           String jpegInput, List<Object> fieldValues) {
    public static VectorRecord raw(String key, int label, int height, int width, int channels, PixelRamp ramp) {
        return new VectorRecord(key, label, Codec.RAW, height, width, channels, ramp, null, List.of());
    }

    public static VectorRecord lz4(String key, int label, int height, int width, int channels, PixelRamp ramp) {
        return new VectorRecord(key, label, Codec.LZ4, height, width, channels, ramp, null, List.of());
    }

    /** An RGB record stored as yuv420: the ramp is what the writer converts, {@link #pixels()} what readers decode. */
    public static VectorRecord yuv420(String key, int label, int height, int width, PixelRamp ramp) {
        return new VectorRecord(key, label, Codec.YUV420, height, width, 3, ramp, null, List.of());
    }

    public static VectorRecord jpeg(String key, int label, String input, int height, int width, int channels,
                                    PixelRamp ramp) {
        return new VectorRecord(key, label, Codec.JPEG, height, width, channels, ramp, input, List.of());
    }

    /** This record with field values (see {@link #fieldValues()}). */
    public VectorRecord withFields(Object... values) {
        return new VectorRecord(key, label, codec, height, width, channels, ramp, jpegInput, Arrays.asList(values));
    }

    /** The pixels the writer is given: the ramp. */
    public byte[] sourcePixels() {
        return ramp.pixels(height, width, channels);
    }

    /**
     * The pixels the record decodes to: exactly for raw, lz4 and yuv420 (the ramp through {@link Bt601}'s encode and
     * decode); approximately, for jpeg.
     */
    public byte[] pixels() {
        byte[] source = sourcePixels();
        if (codec != Codec.YUV420) {
            return source;
        }
        byte[] planes = new byte[(int) Yuv420Descriptor.payloadLength(height, width)];
        Bt601.encode(source, 0, height, width, planes, 0);
        byte[] decoded = new byte[source.length];
        Bt601.decode(planes, 0, height, width, decoded, 0);
        return decoded;
    }
}
