package io.pinshard.writer.convert;

/** A conversion could not go on: the output cannot be written or is not this run's. The message says what to do. */
public class ConvertException extends Exception {
    public ConvertException(String message, Throwable cause) {
        super(message, cause);
    }
}
