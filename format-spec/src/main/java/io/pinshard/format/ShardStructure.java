package io.pinshard.format;

import io.pinshard.format.ShardFormatException.Kind;
import org.agrona.DirectBuffer;

/**
 * The validated section boundaries of one shard file. {@link #read} trusts nothing: it checks header,
 * footer, that the sections tile the file exactly, the index checksum, and every index entry, so that
 * afterwards any payload or key offset from the index can be used without further bounds checks.
 */
public final class ShardStructure {
    private final int alignment;
    private final int shardNumber;
    private final int minorVersion;
    private final long fileLength;
    private final long recordCount;
    private final long recordsStart;
    private final long recordsEnd;
    private final long indexOffset;
    private final long keyTableOffset;
    private final long keyTableLength;
    private final long metadataOffset;
    private final long metadataLength;
    private final long footerOffset;
    private final int indexCrc;
    private final int keyTableCrc;
    private final int metadataCrc;

    private ShardStructure(ShardHeaderFlyweight header, ShardFooterFlyweight footer, long fileLength,
                           long recordsEnd) {
        this.alignment = header.alignment();
        this.shardNumber = header.shardNumber();
        this.minorVersion = header.minorVersion();
        this.fileLength = fileLength;
        this.recordCount = footer.recordCount();
        this.recordsStart = ShardLayout.recordsStart(alignment);
        this.recordsEnd = recordsEnd;
        this.indexOffset = footer.indexOffset();
        this.keyTableOffset = ShardLayout.keyTableOffset(indexOffset, recordCount);
        this.keyTableLength = footer.keyTableLength();
        this.metadataOffset = ShardLayout.metadataOffset(keyTableOffset, keyTableLength);
        this.metadataLength = footer.metadataLength();
        this.footerOffset = fileLength - ShardFooterDescriptor.LENGTH;
        this.indexCrc = footer.indexCrc();
        this.keyTableCrc = footer.keyTableCrc();
        this.metadataCrc = footer.metadataCrc();
    }

    /**
     * Validates a whole shard held in {@code file} (its capacity is the file length).
     *
     * @param checkIndexCrc whether to checksum the index; a full scan of 40 bytes per record
     */
    public static ShardStructure read(DirectBuffer file, Crc32c crc, boolean checkIndexCrc) {
        return read(file, crc, checkIndexCrc, null);
    }

    /**
     * Validates a whole shard held in {@code file} and hands each valid index entry to {@code visitor} (may be
     * null) in the same walk over the index.
     *
     * @param checkIndexCrc whether to checksum the index; a full scan of 40 bytes per record
     */
    public static ShardStructure read(DirectBuffer file, Crc32c crc, boolean checkIndexCrc, IndexEntryVisitor visitor) {
        ShardStructure structure = readFrame(file, crc);
        structure.checkIndex(file, crc, checkIndexCrc, visitor);
        return structure;
    }

    /**
     * Validates the frame of a shard held in {@code file}: header, footer and the tiling of its sections, in
     * O(1) whatever the record count. The index is not read: {@link #checkIndex} must pass before any entry is
     * used (a dataset opens shards this way and checks each index on the shard's first use).
     */
    public static ShardStructure readFrame(DirectBuffer file, Crc32c crc) {
        long fileLength = file.capacity();
        if (fileLength < ShardLayout.MIN_SHARD_BYTES) {
            if (fileLength >= ShardHeaderDescriptor.LENGTH) {
                ShardHeaderDescriptor.checkHeader(file, 0, crc);
            } else if (fileLength >= 8 && file.getLong(0, java.nio.ByteOrder.LITTLE_ENDIAN) != ShardHeaderDescriptor.MAGIC_LONG) {
                throw new ShardFormatException(Kind.BAD_MAGIC, "header magic is not \"PINSHARD\": not a pinshard shard");
            }
            throw new ShardFormatException(Kind.TRUNCATED, "file holds " + fileLength
                + " bytes, fewer than the " + ShardLayout.MIN_SHARD_BYTES + " of an empty shard");
        }
        ShardHeaderDescriptor.checkHeader(file, 0, crc);
        ShardHeaderFlyweight header = new ShardHeaderFlyweight().wrap(file, 0);
        int footerAt = (int) (fileLength - ShardFooterDescriptor.LENGTH);
        ShardFooterDescriptor.checkFooter(file, footerAt, crc);
        ShardFooterFlyweight footer = new ShardFooterFlyweight().wrap(file, footerAt);
        if (footer.fileLength() != fileLength) {
            throw new ShardFormatException(footer.fileLength() > fileLength ? Kind.TRUNCATED : Kind.BAD_FOOTER,
                "footer records a file of " + footer.fileLength() + " bytes, the file holds " + fileLength);
        }
        long count = footer.recordCount();
        long indexOffset = footer.indexOffset();
        long footerOffset = fileLength - ShardFooterDescriptor.LENGTH;
        if (count < 0 || count > (footerOffset - ShardHeaderDescriptor.LENGTH) / IndexEntryDescriptor.LENGTH) {
            throw new ShardFormatException(Kind.BAD_FOOTER, "record count " + Long.toUnsignedString(count)
                + " cannot fit in a " + fileLength + "-byte file");
        }
        if (indexOffset < ShardHeaderDescriptor.LENGTH || indexOffset > footerOffset
            || indexOffset % ShardFooterDescriptor.SECTION_ALIGNMENT != 0) {
            throw new ShardFormatException(Kind.OFFSET_OUT_OF_BOUNDS, "index offset " + Long.toUnsignedString(indexOffset)
                + " is not an 8-aligned offset between the header and the footer at " + footerOffset);
        }
        long expectedFooter = ShardLayout.footerOffset(
            ShardLayout.metadataOffset(ShardLayout.keyTableOffset(indexOffset, count), footer.keyTableLength()),
            footer.metadataLength());
        if (expectedFooter != footerOffset) {
            throw new ShardFormatException(Kind.BAD_FOOTER, "index (" + count + " entries at " + indexOffset
                + "), key table (" + footer.keyTableLength() + " bytes) and metadata (" + footer.metadataLength()
                + " bytes) end at " + expectedFooter + ", but the footer starts at " + footerOffset);
        }
        // The records region ends where the index starts; the last payload may end up to 7 bytes earlier.
        return new ShardStructure(header, footer, fileLength, indexOffset);
    }

    /**
     * Checks the index of the shard whose frame this is ({@code file} as given to {@link #readFrame}): its
     * checksum when {@code checkIndexCrc}, then every entry in order, each valid one handed to {@code visitor}
     * (may be null). O(records).
     *
     * @throws ShardFormatException at the first bad entry (naming its record) or a checksum mismatch
     */
    public void checkIndex(DirectBuffer file, Crc32c crc, boolean checkIndexCrc, IndexEntryVisitor visitor) {
        if (checkIndexCrc) {
            int actual = crc.compute(file, (int) indexOffset, (int) (recordCount * IndexEntryDescriptor.LENGTH));
            if (actual != indexCrc) {
                throw new ShardFormatException(Kind.CHECKSUM_MISMATCH, "index CRC32C is " + Crc32c.hex(actual)
                    + ", footer says " + Crc32c.hex(indexCrc));
            }
        }
        validateEntries(file, visitor);
    }

    private void validateEntries(DirectBuffer file, IndexEntryVisitor visitor) {
        IndexEntryFlyweight entry = new IndexEntryFlyweight();
        long previousEnd = recordsStart;
        for (long i = 0; i < recordCount; i++) {
            entry.wrap(file, entryOffset(i));
            try {
                previousEnd = IndexEntryDescriptor.checkEntry(entry, recordsStart, recordsEnd, alignment, previousEnd,
                    keyTableLength);
                if (visitor != null) {
                    visitor.visit(i, entry);
                }
            } catch (ShardFormatException e) {
                throw e.atRecord(i);
            }
        }
    }

    /** File offset of index entry {@code record}; valid for {@code 0 <= record < recordCount()}. */
    public int entryOffset(long record) {
        return (int) (indexOffset + record * IndexEntryDescriptor.LENGTH);
    }

    public int alignment() {
        return alignment;
    }

    public int shardNumber() {
        return shardNumber;
    }

    public int minorVersion() {
        return minorVersion;
    }

    public long fileLength() {
        return fileLength;
    }

    public long recordCount() {
        return recordCount;
    }

    public long recordsStart() {
        return recordsStart;
    }

    /** End (exclusive) of the region payloads may occupy: the index offset. */
    public long recordsEnd() {
        return recordsEnd;
    }

    public long indexOffset() {
        return indexOffset;
    }

    public long keyTableOffset() {
        return keyTableOffset;
    }

    public long keyTableLength() {
        return keyTableLength;
    }

    public long metadataOffset() {
        return metadataOffset;
    }

    public long metadataLength() {
        return metadataLength;
    }

    public long footerOffset() {
        return footerOffset;
    }

    /** The index CRC32C the footer records (checked by {@link #read} only when asked to). */
    public int indexCrc() {
        return indexCrc;
    }

    public int keyTableCrc() {
        return keyTableCrc;
    }

    public int metadataCrc() {
        return metadataCrc;
    }
}
