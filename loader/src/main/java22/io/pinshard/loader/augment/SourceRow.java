package io.pinshard.loader.augment;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorSpecies;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * JDK 22+ form (the multi-release jar's {@code META-INF/versions/22}) of one of the two source rows
 * {@link SourceRows} gives {@link VectorCropResizer}: vector loads straight from the image's memory
 * ({@code ByteVector.fromMemorySegment} over one segment spanning the address space) instead of a copy of every
 * row into the kernel's buffers, which was 48 % of its time; on JDK 25 these loads cost about a third less than the
 * copy plus array loads (docs/benchmarks.md). A row whose last window would reach past the crop's source span (the
 * box's last rows) is copied into a native scratch row and loaded from there, so every load stays inside the span:
 * the address-space segment checks no bounds, these row checks do.
 *
 * <p>A segment spanning the address space needs {@code MemorySegment.reinterpret}, a restricted method: without
 * native access for this module ({@code --enable-native-access}, which pinshard's flags pass) the rows are copied
 * into heap arrays as on JDK 19-21, and so they are with {@value SourceRows#PROPERTY}{@code =copy}.
 */
final class SourceRow {
    private static final boolean DIRECT = !"copy".equals(System.getProperty(SourceRows.PROPERTY, "").trim())
        && SourceRow.class.getModule().isNativeAccessEnabled();
    private static final MemorySegment MEMORY = DIRECT ? MemorySegment.NULL.reinterpret(Long.MAX_VALUE) : null;

    private final UnsafeBuffer scratch;
    private final byte[] copy;
    private long address;

    SourceRow(int rowBytes) {
        scratch = DIRECT ? new UnsafeBuffer(ByteBuffer.allocateDirect(rowBytes)) : null;
        copy = DIRECT ? null : new byte[rowBytes];
    }

    void point(UnsafeBuffer source, int offset, int rowBytes, int windowEnd) {
        if (!DIRECT) {
            source.getBytes(offset, copy, 0, rowBytes);
        } else if (windowEnd <= source.capacity() - offset) {
            address = source.addressOffset() + offset;
        } else { // the box's last rows: a window would reach past the span
            source.getBytes(offset, scratch, 0, rowBytes);
            address = scratch.addressOffset();
        }
    }

    ByteVector load(VectorSpecies<Byte> species, int offset) {
        if (!DIRECT) {
            return ByteVector.fromArray(species, copy, offset);
        }
        long at = address + offset;
        // A scalar Unsafe read (dead, C2 drops it) marks the compiled method as one doing unsafe accesses, so a
        // truncated mapping's fault here becomes an InternalError: JDK 25's C2 does not mark the method for the
        // vector load alone, and the JVM died of SIGBUS (docs/benchmarks.md; KernelTruncationTest). Unsafe, not a
        // segment read: its few calls leave C2 the inlining budget the vector load needs to stay intrinsic.
        UnsafeApi.getByte(at);
        return ByteVector.fromMemorySegment(species, MEMORY, at, ByteOrder.LITTLE_ENDIAN);
    }

    static String implementation() {
        return DIRECT ? SourceRows.SEGMENT : SourceRows.HEAP_COPIES;
    }
}
