package io.pinshard.serve;

/**
 * A file that is not a usable ring: not one at all, another version, a header that contradicts the file, or a ring
 * another process truncated or overwrote under the server ({@link RingFile#damaged()}).
 */
public final class RingFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RingFormatException(String message) {
        super(message);
    }
}
