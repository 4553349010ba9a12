package io.pinshard.writer.convert;

/**
 * What happens to an image whose longer side is more than {@code --max-aspect} times its shorter side.
 * {@link #CROP}: after resizing, the longer side is cut to {@code floor(shorter * maxAspect)} pixels,
 * keeping the centre (the extra pixel of an odd split goes to the far side). {@link #REJECT}: the
 * image is listed in the manifest's rejected list.
 */
public enum AspectPolicy {
    CROP, REJECT;

    /** {@code crop} or {@code reject}, any case. */
    public static AspectPolicy parse(String text) {
        try {
            return valueOf(text.toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown aspect policy '" + text + "' (expected crop or reject)");
        }
    }
}
