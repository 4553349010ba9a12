package io.pinshard.format;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import org.agrona.DirectBuffer;

/**
 * CRC32C (Castagnoli) over regions of Agrona buffers, using the JDK's intrinsic {@link CRC32C}.
 * One instance per thread; after construction it allocates nothing, whether the buffer wraps a
 * direct/mapped {@link ByteBuffer}, a byte array or a raw address.
 */
public final class Crc32c {
    private static final int SCRATCH = 8192;

    private final CRC32C crc = new CRC32C();
    private ByteBuffer viewSource;
    private ByteBuffer view;
    private byte[] scratch;

    /** CRC32C of {@code length} bytes of {@code buffer} starting at {@code index}. */
    public int compute(DirectBuffer buffer, int index, int length) {
        crc.reset();
        update(buffer, index, length);
        return (int) crc.getValue();
    }

    /** Feeds bytes into the running checksum started by {@link #reset()}. */
    public void update(DirectBuffer buffer, int index, int length) {
        buffer.boundsCheck(index, length);
        byte[] array = buffer.byteArray();
        ByteBuffer source = buffer.byteBuffer();
        if (array != null) {
            crc.update(array, buffer.wrapAdjustment() + index, length);
        } else if (source != null && source.isDirect()) {
            if (viewSource != source) {
                viewSource = source;
                view = source.duplicate();
            }
            int start = buffer.wrapAdjustment() + index;
            view.limit(start + length).position(start);
            crc.update(view);
        } else {
            if (scratch == null) {
                scratch = new byte[SCRATCH];
            }
            for (int done = 0; done < length; done += SCRATCH) {
                int n = Math.min(SCRATCH, length - done);
                buffer.getBytes(index + done, scratch, 0, n);
                crc.update(scratch, 0, n);
            }
        }
    }

    public void reset() {
        crc.reset();
    }

    public void update(byte[] bytes, int offset, int length) {
        crc.update(bytes, offset, length);
    }

    public void update(ByteBuffer bytes) {
        crc.update(bytes);
    }

    public int value() {
        return (int) crc.getValue();
    }

    /** Eight lower-case hex digits, as checksums appear in manifests. */
    public static String hex(int crc) {
        return String.format("%08x", crc);
    }
}
