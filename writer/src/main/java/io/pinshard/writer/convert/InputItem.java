package io.pinshard.writer.convert;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * One input image: its key (the source id stored with the record, e.g. the path relative to the
 * input root), its label, and where its encoded bytes are. {@code problem} is set when listing
 * already knows the input cannot be converted (e.g. a WebDataset sample without an image member);
 * such an input is rejected with that reason, never dropped. {@code fields} says where each of its field values
 * comes from, one per field of the listing's schema (null: none, stored empty), or is empty without fields.
 * {@code copiedFrom} is where the bytes were copied from when {@code file} is a copy (a Parquet row's image, spooled),
 * else null: {@link #origin()} is what a dataset records it was made from ({@link InputRecord}).
 */
public record InputItem(String key, int label, Path file, long offset, long length, String problem,
                        List<FieldSource> fields, Origin copiedFrom) {

    /**
     * Where an input's bytes come from: {@code length} bytes at {@code offset} of {@code file} (a tar member), or the
     * whole file ({@code 0, -1}); for a Parquet row, its row number and image byte count in its {@code .parquet} file.
     */
    public record Origin(Path file, long offset, long length) {
    }

    public InputItem {
        fields = fields == null ? List.of() : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(fields));
    }

    /** An input read where it is. */
    public InputItem(String key, int label, Path file, long offset, long length, String problem,
                     List<FieldSource> fields) {
        this(key, label, file, offset, length, problem, fields, null);
    }

    /** An input without fields. */
    public InputItem(String key, int label, Path file, long offset, long length, String problem) {
        this(key, label, file, offset, length, problem, List.of());
    }

    /** This input with its field sources. */
    public InputItem withFields(List<FieldSource> sources) {
        return new InputItem(key, label, file, offset, length, problem, sources, copiedFrom);
    }

    /** This input with another label. */
    public InputItem withLabel(int newLabel) {
        return new InputItem(key, newLabel, file, offset, length, problem, fields, copiedFrom);
    }

    /** This input, its bytes a copy of {@code length} bytes of {@code source} (at {@code offset}: e.g. a row number). */
    public InputItem copiedFrom(Path source, long sourceOffset, long sourceLength) {
        return new InputItem(key, label, file, offset, length, problem, fields, new Origin(source, sourceOffset,
            sourceLength));
    }

    /** Where its bytes come from; null for an input listing refused (none are read). */
    public Origin origin() {
        return copiedFrom != null ? copiedFrom : file == null ? null : new Origin(file, offset, length);
    }

    /** A whole file; its length is read when it is converted. */
    public static InputItem file(String key, int label, Path file) {
        return new InputItem(key, label, file, 0, -1, null);
    }

    /** {@code length} bytes at {@code offset} inside {@code container} (a tar member). */
    public static InputItem slice(String key, int label, Path container, long offset, long length) {
        return new InputItem(key, label, container, offset, length, null);
    }

    /** An input that listing found unusable. */
    public static InputItem unusable(String key, String problem) {
        return new InputItem(key, -1, null, 0, 0, problem);
    }

    /** The reason an input of {@code size} bytes is refused (also for bytes handed over in memory). */
    static String tooLarge(long size, long maxBytes) {
        return "file is " + size + " bytes, larger than the limit of " + maxBytes;
    }

    /** {@code buffer}, or a larger direct one (at least 1 MiB, up to the limit) when it cannot hold {@code size} bytes. */
    static ByteBuffer ensureCapacity(ByteBuffer buffer, long size, long maxBytes) {
        if (buffer == null || buffer.capacity() < size) {
            return ByteBuffer.allocateDirect((int) Math.max(size, Math.min(maxBytes, 1L << 20)));
        }
        return buffer;
    }

    /**
     * Reads the encoded bytes into {@code into} (grown when too small; returned), positioned at 0
     * with the limit at the end of the data.
     *
     * @throws IOException when the input cannot be read or is larger than {@code maxBytes}
     */
    ByteBuffer read(ByteBuffer into, long maxBytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = length >= 0 ? length : channel.size();
            if (length >= 0 && offset + length > channel.size()) {
                throw new IOException("member ends at byte " + (offset + length) + " but " + file.getFileName()
                    + " holds only " + channel.size());
            }
            if (size > maxBytes) {
                throw new IOException(tooLarge(size, maxBytes));
            }
            ByteBuffer buffer = ensureCapacity(into, size, maxBytes);
            buffer.clear().limit((int) size);
            long position = offset;
            while (buffer.hasRemaining()) {
                int n = channel.read(buffer, position);
                if (n < 0) {
                    throw new IOException("file shrank while being read (" + buffer.position() + " of " + size + " bytes)");
                }
                position += n;
            }
            return buffer.flip();
        }
    }
}
