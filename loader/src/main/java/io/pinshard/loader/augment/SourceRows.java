package io.pinshard.loader.augment;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorSpecies;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The two source rows {@link VectorCropResizer} resizes at once, as vector loads: each a {@link SourceRow}, whose
 * form depends on the JDK (the multi-release jar holds a JDK 22+ one) and on {@value #PROPERTY}.
 */
final class SourceRows {
    /**
     * System property: {@code buffer} loads rows through direct ByteBuffer views where the JDK has them (JDK 17-18),
     * {@code copy} copies them into heap arrays (the release 17 class's default); on JDK 22+ the rows load from
     * memory segments unless it is {@code copy}.
     */
    static final String PROPERTY = "pinshard.vector.sourceRows";
    /** What {@link #implementation()} reports for each form. */
    static final String BYTE_BUFFER = "direct ByteBuffer views (JDK 17)";
    static final String HEAP_COPIES = "row copies into heap arrays";
    static final String SEGMENT = "MemorySegment loads (JDK 22+)";

    private final UnsafeBuffer source = new UnsafeBuffer(0, 0);
    private final SourceRow upper;
    private final SourceRow lower;

    /** @param rowBytes the most bytes a row load reads: the widest box's row plus one vector */
    SourceRows(int rowBytes) {
        this.upper = new SourceRow(rowBytes);
        this.lower = new SourceRow(rowBytes);
    }

    /** Which form loads the rows in this JVM. */
    static String implementation() {
        return SourceRow.implementation();
    }

    /** The crop's source span: {@code spanBytes} from {@code image} hold every byte of its box. */
    void aim(long image, int spanBytes) {
        source.wrap(image, spanBytes);
    }

    /**
     * The rows at {@code upperOffset} and {@code lowerOffset} of the span, {@code rowBytes} each; loads will
     * read up to {@code windowEnd} bytes from a row's start.
     */
    void rows(int upperOffset, int lowerOffset, int rowBytes, int windowEnd) {
        upper.point(source, upperOffset, rowBytes, windowEnd);
        lower.point(source, lowerOffset, rowBytes, windowEnd);
    }

    ByteVector upper(VectorSpecies<Byte> species, int offset) {
        return upper.load(species, offset);
    }

    ByteVector lower(VectorSpecies<Byte> species, int offset) {
        return lower.load(species, offset);
    }
}
