package io.pinshard.writer.convert;

import java.util.Locale;

/**
 * The {@code --codec} choice: a stored codec, or {@code auto} (LZ4 where it saves at least 10 %, else raw).
 * {@code yuv420} stores RGB as planar YUV 4:2:0 (half of raw's bytes, SPEC.md section 6).
 */
public enum OutputCodec {
    RAW, LZ4, JPEG, YUV420, AUTO;

    /** LZ4 is kept under {@code auto} only when the block is at most this fraction of the raw pixels. */
    public static final double AUTO_LZ4_MAX_RATIO = 0.90;

    public static OutputCodec parse(String text) {
        try {
            return valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown codec '" + text + "' (expected raw, lz4, jpeg, yuv420 or auto)");
        }
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
