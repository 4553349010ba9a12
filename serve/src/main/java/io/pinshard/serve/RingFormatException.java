package io.pinshard.serve;

/** A file that is not a usable ring: not one at all, another version, or a header that contradicts the file. */
public final class RingFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RingFormatException(String message) {
        super(message);
    }
}
