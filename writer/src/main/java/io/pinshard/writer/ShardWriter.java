package io.pinshard.writer;

import io.pinshard.format.Codec;
import io.pinshard.format.Crc32c;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldsSectionDescriptor;
import io.pinshard.format.FieldsSectionPlacement;
import io.pinshard.format.IndexEntryDescriptor;
import io.pinshard.format.IndexEntryEncoder;
import io.pinshard.format.IndexEntryFlyweight;
import io.pinshard.format.ShardFooterDescriptor;
import io.pinshard.format.ShardFooterFlyweight;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardHeaderDescriptor;
import io.pinshard.format.ShardHeaderFlyweight;
import io.pinshard.format.Json;
import io.pinshard.format.ShardLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Writes one shard: payloads are streamed to {@code <name>.tmp} as they arrive, index, key table,
 * metadata and footer are written by {@link #finish()}, which then fsyncs and renames the file to its
 * final name. Until then no file with a shard's name exists, and the temporary file has no footer,
 * so a crash never leaves anything a reader would take for a shard. {@link #close()} without
 * {@link #finish()} deletes the temporary file.
 *
 * <p>With a field schema (format 1.1, SPEC.md section 17) each record also takes its {@link FieldValues}; the
 * fields section goes into the key table after the keys and the metadata gains its {@code fieldsSection}. Without
 * one the shard is a 1.0 shard, byte for byte what this class wrote before fields existed.
 */
public final class ShardWriter implements AutoCloseable {
    private static final int STAGING_BYTES = 1 << 20;
    /** Most bytes {@code "fieldsSection"} adds to the metadata: its numbers below 2^31 take at most 10 digits. */
    private static final int SECTION_METADATA_BOUND = Json.compact(Map.of(FieldsSectionPlacement.SECTION_KEY,
        new FieldsSectionPlacement(Integer.MAX_VALUE, Integer.MAX_VALUE, -1).toMetadata())).length;

    private final Path target;
    private final Path temporary;
    private final int alignment;
    private final byte[] metadata;
    private final FileChannel channel;
    private final ByteBuffer staging = BufferUtil.allocateDirectAligned(STAGING_BYTES, 64);
    private final UnsafeBuffer stagingView = new UnsafeBuffer(staging);
    private final ExpandableDirectByteBuffer index = new ExpandableDirectByteBuffer(64 * IndexEntryDescriptor.LENGTH);
    private final ExpandableDirectByteBuffer keys = new ExpandableDirectByteBuffer(4096);
    /** The record fields' columns, or null for a shard without fields. */
    private final FieldColumns fields;
    private final Crc32c fileCrc = new Crc32c();
    private final Crc32c work = new Crc32c();
    private final IndexEntryEncoder entryEncoder = new IndexEntryEncoder();
    private final IndexEntryFlyweight entryCheck = new IndexEntryFlyweight();
    private long position;
    private long records;
    private long keyBytes;
    private boolean finished;
    private boolean closed;

    /**
     * Starts a shard that will be published at {@code target}.
     *
     * @param metadataJson the metadata section (UTF-8 JSON), identical for every record of the shard
     */
    public ShardWriter(Path target, int shardNumber, int alignment, byte[] metadataJson) throws IOException {
        this(target, shardNumber, alignment, metadataJson, List.of());
    }

    /**
     * Starts a shard whose records carry {@code fieldSchema}'s fields (none: a 1.0 shard).
     *
     * @param metadataJson the metadata section (a UTF-8 JSON object), identical for every shard of a dataset; with
     *                     fields it lists them under {@code "fields"}, and {@link #finish()} adds
     *                     {@code "fieldsSection"}
     */
    public ShardWriter(Path target, int shardNumber, int alignment, byte[] metadataJson, List<FieldSchema> fieldSchema)
        throws IOException {
        if (!ShardLayout.isValidAlignment(alignment)) {
            throw new IllegalArgumentException("alignment must be a power of two between "
                + ShardHeaderDescriptor.MIN_ALIGNMENT + " and " + ShardHeaderDescriptor.MAX_ALIGNMENT + ": " + alignment);
        }
        this.target = target;
        this.temporary = target.resolveSibling(target.getFileName() + ".tmp");
        this.alignment = alignment;
        this.metadata = metadataJson.clone();
        FieldSchema.checkSchema(fieldSchema);
        this.fields = fieldSchema.isEmpty() ? null : new FieldColumns(List.copyOf(fieldSchema));
        this.channel = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE);
        fileCrc.reset();
        ShardHeaderFlyweight.write(stagingView, 0, alignment, shardNumber,
            fields == null ? ShardHeaderDescriptor.MINOR_VERSION : ShardHeaderDescriptor.FIELDS_MINOR_VERSION, work);
        staging.position(ShardHeaderDescriptor.LENGTH);
        position = ShardHeaderDescriptor.LENGTH;
    }

    /** Size the finished shard would have if one more record with this payload and key were appended. */
    public long projectedLength(long payloadLength, int keyLength) {
        return projectedLength(payloadLength, keyLength, null);
    }

    /**
     * Size the finished shard would have (at most, with fields: the metadata's numbers are counted at their
     * widest) if one more record with this payload, key and field values were appended.
     */
    public long projectedLength(long payloadLength, int keyLength, FieldValues values) {
        long end = BitUtil.align(Math.max(position, ShardLayout.recordsStart(alignment)), alignment) + payloadLength;
        return finishedLength(end, records + 1, keyBytes + keyLength, values, 1);
    }

    /** Size the shard would have if finished now (at most, with fields). */
    public long length() {
        return finishedLength(position, records, keyBytes, null, 0);
    }

    private long finishedLength(long recordsEnd, long count, long keyLength, FieldValues values, int extra) {
        long keyTableLength = fields == null ? keyLength
            : FieldsSectionDescriptor.sectionOffset(keyLength) + fields.sectionLength(values, extra);
        long keyTable = ShardLayout.keyTableOffset(ShardLayout.indexOffset(recordsEnd), count);
        long metadataLength = metadata.length + (fields == null ? 0 : SECTION_METADATA_BOUND);
        return ShardLayout.footerOffset(ShardLayout.metadataOffset(keyTable, keyTableLength), metadataLength)
            + ShardFooterDescriptor.LENGTH;
    }


    public long records() {
        return records;
    }

    public Path target() {
        return target;
    }

    /**
     * Appends one record whose payload is already in its stored form (raw pixels, an LZ4 block of
     * them, or JPEG bytes). The entry is checked by the same rules the reader applies, so a record
     * the reader would refuse is refused here.
     *
     * @return the record's number within this shard
     */
    public long append(Codec codec, DirectBuffer payload, int offset, int length, int height, int width,
                       int channels, int label, String key) throws IOException {
        return append(codec, payload, offset, length, height, width, channels, label, key.getBytes(StandardCharsets.UTF_8));
    }

    /** As {@link #append(Codec, DirectBuffer, int, int, int, int, int, int, String)} with the key in UTF-8. */
    public long append(Codec codec, DirectBuffer payload, int offset, int length, int height, int width,
                       int channels, int label, byte[] keyUtf8) throws IOException {
        return append(codec, payload, offset, length, height, width, channels, label, keyUtf8, null);
    }

    /**
     * As {@link #append(Codec, DirectBuffer, int, int, int, int, int, int, byte[])} with the record's field values
     * ({@code values} null: every field empty, which only variable-length fields may be; a shard without fields
     * takes null only).
     */
    public long append(Codec codec, DirectBuffer payload, int offset, int length, int height, int width,
                       int channels, int label, byte[] keyUtf8, FieldValues values) throws IOException {
        ensureOpen();
        if (fields == null && values != null) {
            throw new IllegalArgumentException("shard " + target.getFileName() + " has no fields; record "
                + keyText(keyUtf8) + " came with field values");
        }
        if (keyUtf8.length > IndexEntryDescriptor.MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("key is longer than " + IndexEntryDescriptor.MAX_KEY_LENGTH + " bytes: " + keyText(keyUtf8));
        }
        long projected = projectedLength(length, keyUtf8.length, values);
        if (projected > ShardLayout.MAX_SHARD_BYTES) {
            throw new IllegalArgumentException("record " + keyText(keyUtf8) + " would grow shard " + target.getFileName() + " to "
                + projected + " bytes, past the format's limit of " + ShardLayout.MAX_SHARD_BYTES);
        }
        long payloadOffset = BitUtil.align(Math.max(position, ShardLayout.recordsStart(alignment)), alignment);
        int entry = (int) (records * IndexEntryDescriptor.LENGTH);
        index.checkLimit(entry + IndexEntryDescriptor.LENGTH);
        entryEncoder.wrap(index, entry).clear().payload(payloadOffset, length, work.compute(payload, offset, length))
            .shape(height, width, channels).codec(codec).label(label).key(keyBytes, keyUtf8.length);
        try {
            IndexEntryDescriptor.checkEntry(entryCheck.wrap(index, entry), payloadOffset, payloadOffset + length,
                alignment, payloadOffset, keyBytes + keyUtf8.length);
        } catch (ShardFormatException e) {
            throw new IllegalArgumentException("record " + keyText(keyUtf8) + " cannot be stored: " + e.detail(), e);
        }
        if (fields != null) {
            try {
                fields.add(values);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("record " + keyText(keyUtf8) + " cannot be stored: " + e.getMessage(), e);
            }
        }
        writeZeros(payloadOffset - position);
        writeBytes(payload, offset, length);
        keys.putBytes((int) keyBytes, keyUtf8);
        keyBytes += keyUtf8.length;
        return records++;
    }

    /** Writes index, key table, metadata and footer, fsyncs and renames the shard into place. */
    public ShardSummary finish() throws IOException {
        ensureOpen();
        long indexOffset = ShardLayout.indexOffset(position);
        writeZeros(indexOffset - position);
        int indexLength = (int) (records * IndexEntryDescriptor.LENGTH);
        writeBytes(index, 0, indexLength);
        long keyTableLength = keyBytes;
        byte[] metadata = this.metadata;
        if (fields != null) {
            // The fields section goes after the keys, 8-aligned within the table (SPEC.md section 17.2).
            long sectionOffset = FieldsSectionDescriptor.sectionOffset(keyBytes);
            long sectionLength = fields.sectionLength();
            keyTableLength = sectionOffset + sectionLength;
            keys.checkLimit((int) keyTableLength);
            keys.setMemory((int) keyBytes, (int) (sectionOffset - keyBytes), (byte) 0);
            fields.writeSection(keys, (int) sectionOffset);
            metadata = withSection(new FieldsSectionPlacement(sectionOffset, sectionLength,
                work.compute(keys, (int) sectionOffset, (int) sectionLength)));
        }
        writeBytes(keys, 0, (int) keyTableLength);
        UnsafeBuffer metadataView = new UnsafeBuffer(metadata);
        writeBytes(metadataView, 0, metadata.length);
        writeZeros(ShardLayout.footerOffset(position, 0) - position);
        long fileLength = position + ShardFooterDescriptor.LENGTH;
        UnsafeBuffer footer = new UnsafeBuffer(new byte[ShardFooterDescriptor.LENGTH]);
        ShardFooterFlyweight.write(footer, 0, records, indexOffset, keyTableLength, metadata.length, fileLength,
            work.compute(index, 0, indexLength), work.compute(keys, 0, (int) keyTableLength),
            work.compute(metadataView, 0, metadata.length), work);
        writeBytes(footer, 0, ShardFooterDescriptor.LENGTH);
        flush();
        channel.force(true);
        channel.close();
        Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        Durability.syncDirectory(target.toAbsolutePath().getParent());
        finished = true;
        closed = true;
        return new ShardSummary(target, records, fileLength, fileCrc.value());
    }

    /** Abandons an unfinished shard: closes and deletes the temporary file. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            channel.close();
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    /** The metadata with {@code fieldsSection} added (compact, keys sorted, as every shard's metadata is). */
    private byte[] withSection(FieldsSectionPlacement placement) throws IOException {
        Map<String, Object> parsed = Json.parseObject(this.metadata);
        parsed.put(FieldsSectionPlacement.SECTION_KEY, placement.toMetadata());
        return Json.compact(parsed);
    }

    // Keys are only decoded for error messages, not on every append.
    private static String keyText(byte[] keyUtf8) {
        return new String(keyUtf8, StandardCharsets.UTF_8);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("shard writer for " + target + " is " + (finished ? "finished" : "closed"));
        }
    }

    private void writeZeros(long count) throws IOException {
        while (count > 0) {
            if (!staging.hasRemaining()) {
                flush();
            }
            int n = (int) Math.min(count, staging.remaining());
            stagingView.setMemory(staging.position(), n, (byte) 0);
            staging.position(staging.position() + n);
            position += n;
            count -= n;
        }
    }

    private void writeBytes(DirectBuffer source, int offset, int length) throws IOException {
        while (length > 0) {
            if (!staging.hasRemaining()) {
                flush();
            }
            int n = Math.min(length, staging.remaining());
            stagingView.putBytes(staging.position(), source, offset, n);
            staging.position(staging.position() + n);
            position += n;
            offset += n;
            length -= n;
        }
    }

    private void flush() throws IOException {
        staging.flip();
        fileCrc.update(staging.duplicate());
        while (staging.hasRemaining()) {
            channel.write(staging);
        }
        staging.clear();
    }
}
