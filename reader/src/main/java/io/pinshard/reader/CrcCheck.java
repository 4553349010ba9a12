package io.pinshard.reader;

import io.pinshard.format.Codec;

/**
 * When a payload's CRC32C is checked before decoding. {@link #AUTO}, the default, checks compressed
 * payloads (jpeg, lz4), where the checksum costs little next to decoding and a changed byte would otherwise
 * decode to plausible garbage; uncompressed payloads (raw, yuv420) are copied or cropped at memory speed, where a
 * checksum costs a noticeable share (docs/loader.md gives the measured figures), so AUTO leaves them to
 * {@code verify}.
 */
public enum CrcCheck {
    /** Compressed codecs (jpeg, lz4) only. */
    AUTO,
    /** Every payload. */
    ALWAYS,
    /** None. */
    NEVER;

    /** Whether payloads of {@code codec} are checked. */
    public boolean checks(Codec codec) {
        return this == ALWAYS || (this == AUTO && !codec.isUncompressed());
    }

    /** Lower-case name for the command line and bench output. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    public static CrcCheck fromLabel(String label) {
        for (CrcCheck mode : values()) {
            if (mode.name().equalsIgnoreCase(label)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown CRC check '" + label + "' (expected auto, always or never)");
    }
}
