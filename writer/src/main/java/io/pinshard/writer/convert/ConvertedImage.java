package io.pinshard.writer.convert;

import io.pinshard.format.Codec;

/**
 * The outcome of converting one input: either a payload in its stored form (with its shape), or
 * the reason it was rejected ({@code rejectReason} non-null, payload null).
 */
public record ConvertedImage(Codec codec, byte[] payload, int height, int width, int channels, long inputBytes,
                      String rejectReason) {

    public static ConvertedImage rejected(String reason, long inputBytes) {
        return new ConvertedImage(null, null, 0, 0, 0, inputBytes, reason);
    }

    public boolean isRejected() {
        return rejectReason != null;
    }
}
