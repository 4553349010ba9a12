package io.pinshard.jpeg;

import java.nio.charset.StandardCharsets;
import org.agrona.DirectBuffer;

/**
 * The result block {@code pinshard_jpeg_decode} writes on every return (native byte order, 4-byte ints), and
 * its status codes; the C side's copy is {@code pinshard_jpeg.h}.
 *
 * <pre>
 *   0               4               8               12              16
 *   +---------------+---------------+---------------+---------------+
 *   | image width   | image height  | components    | progressive   |
 *   +---------------+---------------+---------------+---------------+
 *   | scaled width  | scaled height | region x      | region width  |
 *   +---------------+---------------+---------------+---------------+
 *   | warnings      | stream bytes  |
 *   +---------------+---------------+
 * </pre>
 *
 * After the result block, the message block: the error text at {@link #MESSAGE_OFFSET}, the first warning at
 * {@link #WARNING_OFFSET}, each NUL-terminated within {@link #MESSAGE_LENGTH} bytes.
 */
final class JpegResultDescriptor {
    static final int OK = 0;
    /** Not 1 or 3 components (CMYK, YCCK): the caller's other decoder takes the stream. */
    static final int UNSUPPORTED = 1;
    static final int CORRUPT = 2;
    static final int ARGUMENT = 3;
    /** pinshard_shrink's scratch could not be allocated. */
    static final int MEMORY = 4;
    /** pinshard_jpeg_encode's stream does not fit in the destination. */
    static final int FULL = 5;
    /** Where pinshard_jpeg_encode writes the stream's length (a native long) in the same block. */
    static final int ENCODED_LENGTH = 0;

    static final int IMAGE_WIDTH = 0;
    static final int IMAGE_HEIGHT = 4;
    static final int COMPONENTS = 8;
    static final int PROGRESSIVE = 12;
    static final int SCALED_WIDTH = 16;
    static final int SCALED_HEIGHT = 20;
    static final int REGION_X = 24;
    static final int REGION_WIDTH = 28;
    static final int WARNINGS = 32;
    /** Bytes of stream libjpeg decoded: the restart-interval cut's when there was one, else the whole stream's. */
    static final int STREAM_BYTES = 36;
    static final int RESULT_LENGTH = 40;

    /** libjpeg's JMSG_LENGTH_MAX. */
    static final int MESSAGE_LENGTH = 200;
    static final int MESSAGE_OFFSET = 64;
    static final int WARNING_OFFSET = MESSAGE_OFFSET + MESSAGE_LENGTH;
    static final int LENGTH = WARNING_OFFSET + MESSAGE_LENGTH;

    private JpegResultDescriptor() {
    }

    /** The NUL-terminated message field at {@code offset} of {@code result} (at most {@link #MESSAGE_LENGTH} bytes). */
    static String message(DirectBuffer result, int offset) {
        int end = 0;
        while (end < MESSAGE_LENGTH && result.getByte(offset + end) != 0) {
            end++;
        }
        byte[] bytes = new byte[end];
        result.getBytes(offset, bytes);
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }
}
