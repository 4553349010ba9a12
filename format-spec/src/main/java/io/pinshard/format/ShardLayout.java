package io.pinshard.format;

import org.agrona.BitUtil;

/** Rules that place the sections of a shard relative to each other; shared by writer, reader and verifier. */
public final class ShardLayout {
    /**
     * Largest shard file. Readers address a mapped shard with 32-bit offsets (one Agrona buffer per
     * file), so writers refuse to grow a shard past this instead of producing a file nobody can map.
     */
    public static final long MAX_SHARD_BYTES = Integer.MAX_VALUE & ~(ShardHeaderDescriptor.MAX_ALIGNMENT - 1L);

    /** Smallest possible shard: header, no records, empty key table and metadata, footer. */
    public static final int MIN_SHARD_BYTES = ShardHeaderDescriptor.LENGTH + ShardFooterDescriptor.LENGTH;

    private ShardLayout() {
    }

    public static boolean isValidAlignment(long alignment) {
        return BitUtil.isPowerOfTwo(alignment)
            && alignment >= ShardHeaderDescriptor.MIN_ALIGNMENT
            && alignment <= ShardHeaderDescriptor.MAX_ALIGNMENT;
    }

    /** Offset at which the first payload may start: the header length rounded up to the alignment. */
    public static long recordsStart(int alignment) {
        return BitUtil.align(ShardHeaderDescriptor.LENGTH, alignment);
    }

    /** Index offset for a records region that ends (exclusive) at {@code recordsEnd}. */
    public static long indexOffset(long recordsEnd) {
        return BitUtil.align(recordsEnd, ShardFooterDescriptor.SECTION_ALIGNMENT);
    }

    public static long keyTableOffset(long indexOffset, long recordCount) {
        return indexOffset + recordCount * IndexEntryDescriptor.LENGTH;
    }

    public static long metadataOffset(long keyTableOffset, long keyTableLength) {
        return keyTableOffset + keyTableLength;
    }

    public static long footerOffset(long metadataOffset, long metadataLength) {
        return BitUtil.align(metadataOffset + metadataLength, ShardFooterDescriptor.SECTION_ALIGNMENT);
    }

    /** Decoded size in bytes of a height x width x channels uint8 image. */
    public static long decodedBytes(long height, long width, long channels) {
        return height * width * channels;
    }
}
