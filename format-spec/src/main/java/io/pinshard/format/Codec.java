package io.pinshard.format;

/** How a record's payload encodes its pixels. The id is the byte stored in the index entry. */
public enum Codec {
    /** Row-major uint8 pixels, height x width x channels, channel order RGB(A). */
    RAW(0, "raw"),
    /** One LZ4 block (no frame) whose decompressed content is exactly the {@link #RAW} pixels. */
    LZ4(1, "lz4"),
    /** A complete JPEG stream whose frame is height x width, decoded to 1 (gray) or 3 (RGB) channels. */
    JPEG(2, "jpeg"),
    /**
     * Planar Y, then Cb (U), then Cr (V) at 4:2:0, BT.601 full range as JFIF: height x width luma bytes, then two
     * ceil(height/2) x ceil(width/2) chroma planes; decodes to 3-channel RGB ({@link Yuv420Descriptor}).
     */
    YUV420(3, "yuv420");

    private static final Codec[] BY_ID = {RAW, LZ4, JPEG, YUV420};

    private final int id;
    private final String label;

    Codec(int id, String label) {
        this.id = id;
        this.label = label;
    }

    /**
     * Whether the payload is the pixels' bytes as they are, uncompressed ({@link #RAW}, {@link #YUV420}): readers
     * crop them straight from the mapping, at memory speed.
     */
    public boolean isUncompressed() {
        return this == RAW || this == YUV420;
    }

    public int id() {
        return id;
    }

    /** Lower-case name used in JSON and on the command line. */
    public String label() {
        return label;
    }

    /** The codec for a stored id, or {@code null} when the id is unknown (the caller reports it). */
    public static Codec fromId(int id) {
        return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
    }

    public static Codec fromLabel(String label) {
        for (Codec codec : BY_ID) {
            if (codec.label.equalsIgnoreCase(label)) {
                return codec;
            }
        }
        throw new IllegalArgumentException("unknown codec '" + label + "' (expected raw, lz4, jpeg or yuv420)");
    }
}
