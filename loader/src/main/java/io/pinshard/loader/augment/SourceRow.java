package io.pinshard.loader.augment;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorSpecies;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One of the two source rows {@link SourceRows} gives {@link VectorCropResizer}, as vector loads. This form copies the row
 * from the image (a mapped payload, scratch) into a heap array with a JVM-guarded copy (a truncated mapping faults as an
 * {@link InternalError}) and loads from there.
 *
 * <p>It can also load straight from the image's memory through direct {@link ByteBuffer} views re-aimed at each row
 * ({@code ByteVector.fromByteBuffer}, JDK 17-18 only: bounds-checked, a truncated mapping still faults as an
 * {@link InternalError}); a row whose last window would reach past the crop's source span (the box's last rows) is
 * then copied into a native scratch row. That drops the copies, 48 % of the kernel's time, but on JDK 17 each such
 * load costs about twice an array load, and the kernel ran at 24 % of a plain copy against 30-34 % with copies
 * (docs/benchmarks.md), so it is chosen only with {@value SourceRows#PROPERTY}{@code =buffer}.
 *
 * <p>The multi-release jar's {@code META-INF/versions/22} class (built when Maven runs on JDK 22+) replaces this one
 * on JDK 22+ with {@code MemorySegment} loads, which do win there; see its note.
 */
final class SourceRow {
    private static final boolean DIRECT = "buffer".equals(System.getProperty(SourceRows.PROPERTY, "").trim())
        && hasByteBufferLoads();
    private static final long CAPACITY_FIELD_OFFSET = DIRECT ? UnsafeApi.objectFieldOffset(Buffer.class, "capacity") : -1;

    private final ByteBuffer view;
    private final UnsafeBuffer scratch;
    private final byte[] copy;

    SourceRow(int rowBytes) {
        if (DIRECT) {
            // allocateDirect(0) owns no memory worth keeping: its address is overwritten for every row, and
            // its cleaner frees what it allocated, not what the view points at.
            view = ByteBuffer.allocateDirect(0).order(ByteOrder.LITTLE_ENDIAN);
            scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(rowBytes));
            copy = null;
        } else {
            view = null;
            scratch = null;
            copy = new byte[rowBytes];
        }
    }

    void point(UnsafeBuffer source, int offset, int rowBytes, int windowEnd) {
        if (!DIRECT) {
            source.getBytes(offset, copy, 0, rowBytes);
        } else if (windowEnd <= source.capacity() - offset) {
            aim(source.addressOffset() + offset, windowEnd);
        } else { // the box's last rows: a window would reach past the span
            source.getBytes(offset, scratch, 0, rowBytes);
            aim(scratch.addressOffset(), scratch.capacity());
        }
    }

    ByteVector load(VectorSpecies<Byte> species, int offset) {
        return DIRECT ? ByteVector.fromByteBuffer(species, view, offset, ByteOrder.LITTLE_ENDIAN)
            : ByteVector.fromArray(species, copy, offset);
    }

    private void aim(long address, int length) {
        UnsafeApi.putLong(view, BufferUtil.BYTE_BUFFER_ADDRESS_FIELD_OFFSET, address);
        UnsafeApi.putInt(view, CAPACITY_FIELD_OFFSET, length);
        view.limit(length);
    }

    static String implementation() {
        return DIRECT ? SourceRows.BYTE_BUFFER : SourceRows.HEAP_COPIES;
    }

    private static boolean hasByteBufferLoads() {
        try {
            ByteVector.class.getMethod("fromByteBuffer", VectorSpecies.class, ByteBuffer.class, int.class, ByteOrder.class);
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
