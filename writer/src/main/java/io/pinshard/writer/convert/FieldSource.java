package io.pinshard.writer.convert;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Where one field value of an input comes from: a byte range of a file (a WebDataset tar member, read by the
 * worker that converts the image) or bytes already in memory (a {@code --fields-from} cell), text or, with
 * {@code json}, the JSON text of a JSONL value. {@link FieldDecoder} turns it into the field's stored form.
 *
 * @param what how errors name it, e.g. {@code "member 000001.txt"} or {@code "column caption"}
 */
public record FieldSource(String what, Path file, long offset, long length, byte[] inline, boolean json) {
    /** Largest field value read from a file: a caption or a metadata object, not a second image. */
    public static final long MAX_MEMBER_BYTES = 16L << 20;

    public static FieldSource member(String what, Path file, long offset, long length) {
        return new FieldSource(what, file, offset, length, null, false);
    }

    public static FieldSource cell(String what, byte[] bytes, boolean json) {
        return new FieldSource(what, null, 0, bytes.length, bytes, json);
    }

    /** The value's bytes as stored in its source. */
    byte[] read() throws IOException {
        if (inline != null) {
            return inline;
        }
        if (length > MAX_MEMBER_BYTES) {
            throw new IOException(what + " is " + length + " bytes, more than the " + MAX_MEMBER_BYTES + " a field may take");
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            if (offset + length > channel.size()) {
                throw new IOException(what + " ends at byte " + (offset + length) + " but " + file.getFileName()
                    + " holds only " + channel.size());
            }
            ByteBuffer buffer = ByteBuffer.allocate((int) length);
            long position = offset;
            while (buffer.hasRemaining()) {
                int n = channel.read(buffer, position);
                if (n < 0) {
                    throw new IOException(file.getFileName() + " shrank while " + what + " was read");
                }
                position += n;
            }
            return buffer.array();
        }
    }
}
